import { afterEach, describe, expect, it } from 'vitest';
import { PendingRequests, isZeroCorrel, newCorrel } from '../../../src/client/moonmq/pending-requests.js';
import { TimeoutError } from '../../../src/errors.js';
import type { Frame } from '../../../src/protocol/frame-decoder.js';
import { ZERO_CORREL } from '../../../src/protocol/message.js';
import { Op } from '../../../src/protocol/opcodes.js';

interface Outcome {
  settled: Promise<Frame | Frame[] | Error>;
  correl: Buffer;
}

let open: PendingRequests | undefined;
afterEach(() => open?.failAll(new Error('test over')));

/** Registers one PRODUCE under a fresh correl; its outcome is the frame it resolves with or the error. */
function request(pending: PendingRequests, timeoutMs: number): Outcome {
  const correl = pending.fresh();
  const settled = new Promise<Frame | Frame[] | Error>((resolve) => {
    pending.add(
      correl,
      { op: Op.PRODUCE, endOp: Op.PRODUCE_ACK, stream: undefined, maxFrames: 1, resolve, reject: resolve },
      timeoutMs,
    );
  });
  return { settled, correl: correl.bytes };
}

describe('newCorrel', () => {
  it('cuts distinct UUIDv4 correls from its pool, well past one pooled block', () => {
    const seen = new Set<string>();
    const malformed: string[] = [];
    for (let i = 0; i < 1_000; i++) {
      const { bytes, key } = newCorrel();
      const v4 = bytes.length === 16 && bytes[6]! >> 4 === 4 && bytes[8]! >> 6 === 0b10;
      if (!v4 || key !== (bytes.readUInt32BE(12) & 0x3fff_ffff)) malformed.push(bytes.toString('hex'));
      seen.add(bytes.toString('hex'));
    }
    expect(malformed).toEqual([]);
    expect(seen.size).toBe(1_000);
  });

  it('keeps a handed-out correl intact while later ones are drawn', () => {
    const first = newCorrel().bytes;
    const copy = Buffer.from(first);
    for (let i = 0; i < 600; i++) newCorrel();
    expect(first.equals(copy)).toBe(true);
  });

  it('tells the all-zero correl from one that only ends in zeros', () => {
    expect(isZeroCorrel(ZERO_CORREL)).toBe(true);
    const tail = Buffer.alloc(16);
    tail[0] = 1;
    expect(isZeroCorrel(tail)).toBe(false);
  });
});

describe('PendingRequests', () => {
  it('finds a request by its correl and drops a frame that shares only the key', () => {
    const pending = (open = new PendingRequests('b:1'));
    const { correl } = request(pending, 10_000);
    const impostor = Buffer.from(correl);
    impostor[0] = impostor[0]! ^ 0xff;
    expect(pending.get(impostor)).toBeUndefined();
    for (const at of [7, 10, 12]) {
      const other = Buffer.from(correl);
      other[at] = other[at]! ^ (at === 12 ? 0x80 : 0x01);
      expect(pending.get(other)).toBeUndefined();
    }
    expect(pending.get(Buffer.from(correl))?.op).toBe(Op.PRODUCE);
    pending.delete(correl);
    expect(pending.size).toBe(0);
  });

  it('times out each request at its own deadline with one timer, the shorter after the longer', async () => {
    const pending = (open = new PendingRequests('b:1'));
    const long = request(pending, 120);
    const short = request(pending, 20);
    const err = await short.settled;
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as Error).message).toBe('PRODUCE to b:1 got no reply within 20 ms');
    expect(pending.size).toBe(1);
    expect(pending.get(long.correl)).toBeDefined();
    expect(await long.settled).toBeInstanceOf(TimeoutError);
    expect(pending.size).toBe(0);
  });

  it('re-arms for the requests left after the earliest deadline passed', async () => {
    const pending = (open = new PendingRequests('b:1'));
    const first = request(pending, 15);
    const second = request(pending, 60);
    const answered = request(pending, 30);
    const got = pending.get(answered.correl)!;
    pending.delete(answered.correl);
    got.resolve({ op: Op.PRODUCE_ACK, correl: answered.correl, payload: Buffer.alloc(0) });
    expect(await first.settled).toBeInstanceOf(TimeoutError);
    expect(await answered.settled).toMatchObject({ op: Op.PRODUCE_ACK });
    expect(await second.settled).toBeInstanceOf(TimeoutError);
  });

  it('rejects every request with the error failAll is given', async () => {
    const pending = new PendingRequests('b:1');
    const a = request(pending, 10_000);
    const b = request(pending, 10_000);
    const closed = new Error('closed');
    pending.failAll(closed);
    expect(await a.settled).toBe(closed);
    expect(await b.settled).toBe(closed);
    expect(pending.size).toBe(0);
  });
});
