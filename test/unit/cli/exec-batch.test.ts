import { describe, expect, it } from 'vitest';
import { ExecFailedError, envelopeLine, execBatch } from '../../../src/cli/exec-batch.js';
import { parseBackoff, parseBreaker, parseFilter, parseRate } from '../../../src/cli/exec-consume.js';
import { toEnvelope } from '../../../src/cli/render/envelope.js';
import { stringifyJson } from '../../../src/cli/render/json.js';
import type { BatchItem } from '../../../src/client/index.js';
import { CraterError } from '../../../src/errors.js';

function item(
  key: Buffer,
  value: Buffer,
  offset: bigint,
  headers = [{ name: 'h"1', value: Buffer.from([0xff, 0x00]) }],
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

describe('exec stdin lines', () => {
  it('are exactly the consume --json envelope, for every encoding, odd bytes and a 64-bit offset', () => {
    const cases = [
      item(Buffer.from('k1'), Buffer.from('line\nbreak "quoted" ✓'), 42n),
      item(Buffer.alloc(0), Buffer.from([0xc3, 0x28]), 2n ** 60n),
      item(Buffer.from([0, 1, 2]), Buffer.alloc(0), 0n, []),
    ];
    for (const encoding of ['auto', 'base64', 'hex'] as const) {
      for (const c of cases) {
        expect(envelopeLine(c, encoding, true)).toBe(`${stringifyJson(toEnvelope(c.transport, encoding))}\n`);
        expect(JSON.parse(envelopeLine(c, encoding, false)).headers).toBeNull();
      }
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
