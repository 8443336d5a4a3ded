/**
 * The crater window tail of a `__producer_state` memo (docs/extensions.md, "Idempotent window"): golden bytes,
 * round trip, what a MoonMQ-style reader (v3 only) sees, and the sequence table's window rules.
 */
import { describe, expect, it } from 'vitest';
import { afterBatch, checkBatch } from '../../../src/broker/producer-state/sequence-table.js';
import { BatchFlag } from '../../../src/protocol/opcodes.js';
import { decodeMemoValue, encodeMemoValue } from '../../../src/storage/producer-state-codec.js';

// pid 1 memo for "orders": last batch seq 2..3 at 1@30, 1@31 (epoch 0); older batch seq 0..1 at 1@10, 1@20.
const GOLDEN =
  '00000003 000000000000001f 00000001 0000' + // v2: last_seq 3, last ack 1@31, epoch 0
  '00000002 00000002 00000001000000000000001e 00000001000000000000001f' + // v3: base 2, 2 acks
  '43525749 01' + // window tail: "CRWI", 1 older batch
  '00000000 00000002 00000001000000000000000a 000000010000000000000014'; // base 0, 2 acks

const memo = {
  lastSeq: 3,
  lastOffset: 31n,
  lastPartition: 1,
  epoch: 0,
  batch: {
    baseSeq: 2,
    acks: [
      { partition: 1, offset: 30n },
      { partition: 1, offset: 31n },
    ],
  },
  window: [
    {
      baseSeq: 0,
      acks: [
        { partition: 1, offset: 10n },
        { partition: 1, offset: 20n },
      ],
    },
  ],
};

describe('idempotent window memo tail', () => {
  it('encodes to the golden bytes and decodes back', () => {
    const bytes = encodeMemoValue(memo);
    expect(bytes.toString('hex')).toBe(GOLDEN.replaceAll(' ', ''));
    const decoded = decodeMemoValue(bytes);
    expect(decoded.ok && decoded.value).toMatchObject({ version: 3, batch: memo.batch, window: memo.window });
    expect(decoded.ok && decoded.value.ignoredTail).toBeUndefined();
  });

  it('a v3 reader that ignores trailing bytes sees the last batch only (what MoonMQ reads)', () => {
    const bytes = encodeMemoValue(memo);
    const v3Only = decodeMemoValue(bytes.subarray(0, 18 + 8 + 24));
    expect(v3Only.ok && v3Only.value.batch).toEqual(memo.batch);
    expect(v3Only.ok && v3Only.value.window).toBeUndefined();
  });

  it('a tail that is not a whole window is ignored, not an error', () => {
    const bytes = Buffer.concat([encodeMemoValue({ ...memo, window: undefined }), Buffer.from('43525749', 'hex')]);
    const decoded = decodeMemoValue(bytes);
    expect(decoded.ok && decoded.value.window).toBeUndefined();
    expect(decoded.ok && decoded.value.ignoredTail).toMatchObject({ part: 'window', at: 50, bytes: 4 });
  });

  it('the WINDOW flag is bit 3 of the PRODUCE_BATCH flags', () => {
    expect(BatchFlag.WINDOW).toBe(0x08);
  });
});

describe('sequence table with the window', () => {
  const s1 = afterBatch(0, 0, [{ partition: 1, offset: 0n }], undefined);
  const s2 = afterBatch(1, 0, [{ partition: 1, offset: 1n }], s1);
  const s3 = afterBatch(2, 0, [{ partition: 1, offset: 2n }], s2);

  it('replays an older batch of the window only for a windowed request', () => {
    expect(checkBatch(s3, { baseSeq: 0, count: 1, windowed: true }).outcome).toBe('replay-window');
    expect(checkBatch(s3, { baseSeq: 0, count: 1 }).outcome).toBe('out-of-order');
    expect(checkBatch(s3, { baseSeq: 2, count: 1, windowed: true }).outcome).toBe('replay');
    expect(checkBatch(s3, { baseSeq: 4, count: 1, windowed: true }).outcome).toBe('out-of-order');
    expect(checkBatch(s3, { baseSeq: 3, count: 1, windowed: true }).outcome).toBe('append');
  });

  it('keeps the last five batches (four older ones beside the last)', () => {
    let s = s3;
    for (let seq = 3; seq < 10; seq++) s = afterBatch(seq, 0, [{ partition: 1, offset: BigInt(seq) }], s);
    expect(s.window?.map((b) => b.baseSeq)).toEqual([8, 7, 6, 5]);
    expect(checkBatch(s, { baseSeq: 5, count: 1, windowed: true }).outcome).toBe('replay-window');
    expect(checkBatch(s, { baseSeq: 4, count: 1, windowed: true }).outcome).toBe('out-of-order');
  });

  it('a request without the flag starts no window', () => {
    expect(afterBatch(3, 0, [{ partition: 1, offset: 3n }]).window).toBeUndefined();
  });
});
