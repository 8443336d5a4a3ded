import { isUtf8 } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { ExecFailedError, execBatch } from '../../../src/cli/exec-batch.js';
import { parseBackoff, parseBreaker, parseFilter, parseRate } from '../../../src/cli/exec-consume.js';
import { EnvelopeWriter, utf8Valid } from '../../../src/cli/render/envelope-writer.js';
import { type EnvelopeEncoding, envelopeEncodings, toEnvelope } from '../../../src/cli/render/envelope.js';
import { stringifyJson } from '../../../src/cli/render/json.js';
import type { BatchItem } from '../../../src/client/index.js';
import { CraterError } from '../../../src/errors.js';

function item(
  key: Buffer,
  value: Buffer,
  offset: bigint,
  headers: Array<{ name: string; value: Buffer }> = [{ name: 'h"1', value: Buffer.from([0xff, 0x00]) }],
): BatchItem<Buffer> {
  return {
    message: value,
    transport: {
      topic: 'scans',
      partition: 3,
      offset,
      timestamp: 1_700_000_000_000n,
      key,
      value,
      headers,
      deliveryAttempt: 1,
    },
  };
}

function rendered(
  items: readonly BatchItem<Buffer>[],
  encoding: EnvelopeEncoding,
  withHeaders: boolean,
  chunk: number,
) {
  const r = new EnvelopeWriter(encoding, withHeaders, chunk);
  const parts: Buffer[] = [];
  for (const i of items) {
    if (r.full(i.transport)) parts.push(r.take());
    r.add(i.transport);
  }
  parts.push(r.take());
  return Buffer.concat(parts).toString('utf8');
}

const expected = (items: readonly BatchItem<Buffer>[], encoding: EnvelopeEncoding, withHeaders: boolean) =>
  items
    .map(
      (i) =>
        `${stringifyJson(toEnvelope({ ...i.transport, headers: withHeaders ? i.transport.headers : undefined }, encoding))}\n`,
    )
    .join('');

describe('exec stdin lines', () => {
  it('are exactly the consume --json envelope, for every encoding, odd bytes and 64-bit offsets', () => {
    const controls = Buffer.from(Array.from({ length: 0x20 }, (_, b) => b));
    const cases = [
      item(Buffer.from('k1'), Buffer.from('line\nbreak "quoted" \\ back ✓ 𝄞 \u2028'), 42n),
      item(Buffer.alloc(0), Buffer.from([0xc3, 0x28]), 2n ** 60n),
      item(Buffer.from([0, 1, 2]), Buffer.alloc(0), 0n, []),
      item(controls, Buffer.from([0x7f, 0x22, 0x5c]), BigInt(Number.MAX_SAFE_INTEGER)),
      item(Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xff]), BigInt(Number.MAX_SAFE_INTEGER) + 1n),
      item(Buffer.from('ab'), Buffer.from('abcd'), 9n, [{ name: 'ünï "x"\n', value: Buffer.from('v') }]),
    ];
    cases.push({ ...cases[0]!, transport: { ...cases[0]!.transport, timestamp: -1n, topic: 'other.topic' } });
    for (const encoding of envelopeEncodings) {
      for (const withHeaders of [true, false]) {
        expect(rendered(cases, encoding, withHeaders, 64 * 1024)).toBe(expected(cases, encoding, withHeaders));
      }
    }
  });

  it('are the envelope for random records, whatever the chunk size', () => {
    let seed = 7;
    const rand = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const bytes = (n: number, text: boolean): Buffer =>
      text
        ? Buffer.from(
            Array.from({ length: n }, () => String.fromCodePoint([rand(128), 0xe9, 0x2713, 0x1f600][rand(4)]!)).join(
              '',
            ),
          )
        : Buffer.from(Array.from({ length: n }, () => rand(256)));
    const items = Array.from({ length: 300 }, () =>
      item(
        bytes(rand(20), rand(2) === 0),
        bytes(rand(300), rand(2) === 0),
        BigInt(rand(2 ** 30)) * BigInt(1 + rand(2 ** 30)),
        Array.from({ length: rand(3) }, () => ({ name: `h${rand(100)}`, value: bytes(rand(10), rand(2) === 0) })),
      ),
    ).map((x, i) => ({ ...x, transport: { ...x.transport, partition: i % 7 } }));
    for (const encoding of envelopeEncodings) {
      for (const chunk of [64, 1000, 256 * 1024])
        expect(rendered(items, encoding, true, chunk)).toBe(expected(items, encoding, true));
    }
  });
});

describe('exec flag parsers', () => {
  it('--rate, --breaker, --backoff', () => {
    expect(parseRate('500/s')).toBe(500);
    expect(parseRate('600/m')).toBe(10);
    expect(() => parseRate('0/s')).toThrow(/invalid --rate/);
    expect(parseBreaker('5/30s')).toEqual({ failureThreshold: 5, samplingWindowMs: 30_000 });
    expect(() => parseBreaker('x/30s')).toThrow(/invalid --breaker/);
    expect(parseBackoff('200ms:5s')).toEqual({ type: 'exponential', initialMs: 200, maxMs: 5_000, jitter: true });
    expect(parseBackoff('1s')).toEqual({ type: 'fixed', delayMs: 1_000 });
    expect(() => parseBackoff('5s:1s')).toThrow(/MAX is below MIN/);
  });

  it('--filter keeps FIELD~REGEX matches and drops FIELD!~REGEX matches, headers included', () => {
    const eu = item(Buffer.from('k'), Buffer.from('eu-1'), 0n, [{ name: 'region', value: Buffer.from('north') }]);
    const test = item(Buffer.from('k'), Buffer.from('test-2'), 1n, []);
    expect([eu, test].map(parseFilter('value!~^test-'))).toEqual([true, false]);
    expect([eu, test].map(parseFilter('value~^eu'))).toEqual([true, false]);
    expect([eu, test].map(parseFilter('header.region~north'))).toEqual([true, false]);
    expect([eu, test].map(parseFilter('header.region!~north'))).toEqual([false, true]);
    expect(() => parseFilter('offset~1')).toThrow(/invalid --filter/);
    expect(() => parseFilter('value~(')).toThrow(/invalid --filter/);
  });
});

describe('a CMD that exits non-zero', () => {
  it('rejects with ExecFailedError: a CraterError with a stable code, the exit status and the message', async () => {
    const spec = {
      command: 'cat > /dev/null; exit 3',
      env: process.env,
      encoding: 'auto' as const,
      passThrough: () => undefined,
    };
    const failed = await execBatch(spec, [item(Buffer.from('k'), Buffer.from('v'), 1n)], ['scans'], false).catch(
      (e: unknown) => e,
    );
    expect(failed).toBeInstanceOf(ExecFailedError);
    expect(failed).toBeInstanceOf(CraterError);
    expect(failed).toMatchObject({ code: 'ERR_EXEC_FAILED', exitCode: 3, signal: null, name: 'ExecFailedError' });
    expect((failed as Error).message).toBe('command exited with code 3');
    const cause = new Error('underlying');
    expect(new ExecFailedError(null, 'SIGKILL', { cause }).cause).toBe(cause);
  });
});

describe('utf8Valid', () => {
  it('agrees with isUtf8 on every 1- and 2-byte input, 3- and 4-byte inputs at the boundaries, and long inputs', () => {
    const edges = [0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff];
    const check = (b: Buffer): void => {
      if (utf8Valid(b) !== isUtf8(b)) throw new Error(`utf8Valid disagrees with isUtf8 on ${b.toString('hex')}`);
    };
    for (let a = 0; a < 256; a++) {
      check(Buffer.from([a]));
      for (let b = 0; b < 256; b++) check(Buffer.from([a, b]));
    }
    for (let a = 0xe0; a < 0x100; a++)
      for (let b = 0; b < 256; b++) for (const c of edges) check(Buffer.from([a, b, c]));
    for (const lead of [0xf0, 0xf1, 0xf3, 0xf4, 0xf5])
      for (let b = 0x80; b < 0xc0; b++)
        for (const c of edges) for (const d of edges) check(Buffer.from([lead, b, c, d]));
    // Past the JS-checked prefix: what isUtf8 finds there, and sequences that straddle it.
    const ascii = Buffer.alloc(40, 0x61);
    check(ascii);
    for (let at = 28; at < 40; at++)
      for (const bad of [[0xff], [0xc3], [0xe2, 0x9c, 0x93], [0xf0, 0x9f, 0x98, 0x80], [0xed, 0xa0, 0x80]]) {
        const b = Buffer.concat([ascii.subarray(0, at), Buffer.from(bad), ascii.subarray(at)]);
        check(b);
        check(b.subarray(0, at + 1));
      }
    expect(utf8Valid(Buffer.from('✓ 𝄞'))).toBe(true);
  });
});
