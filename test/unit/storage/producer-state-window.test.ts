/**
 * The crater window tail of a `__producer_state` memo (docs/extensions.md, "Idempotent window"): golden bytes,
 * round trip, what a MoonMQ-style reader (v3 only) sees, and the sequence table's window rules.
 */
import { describe, expect, it } from 'vitest';
import { afterBatch, checkBatch } from '../../../src/broker/producer-state/sequence-table.js';
import { BatchFlag } from '../../../src/protocol/opcodes.js';
import { Reader } from '../../../src/protocol/reader.js';
import { decodeMemoValue, encodeMemoValue } from '../../../src/storage/producer-state-codec.js';
import { readWindowTail } from '../../../src/storage/producer-state-window.js';

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

  it('each way a window tail can be torn or wrong is ignored whole (and consumed), naming the field and its value byte', () => {
    // The v3 part of `memo` ends at value byte 50; each tail below follows it.
    const v3 = encodeMemoValue({ ...memo, window: undefined });
    const ack = '00000001 0000000000000009';
    const cases: Array<[string, string]> = [
      ['43', 'expected at least 5 bytes (u32 magic "CRWI", u8 batch count), found 1'],
      ['43525748 01', 'magic 0x43525748 at value byte 50, expected 0x43525749 ("CRWI")'],
      ['43525749 00', 'batch count 0 at value byte 54, expected 1..4'],
      ['43525749 05', 'batch count 5 at value byte 54, expected 1..4'],
      ['43525749 01 000000', 'batch 1 of 1 at value byte 55 needs 8 bytes (u32 base_seq, u32 ack count), found 3'],
      ['43525749 01 00000000 00000000', 'batch 1 of 1: ack count 0 at value byte 59, expected 1..1024'],
      ['43525749 01 00000000 00000401', 'batch 1 of 1: ack count 1025 at value byte 59, expected 1..1024'],
      [
        `43525749 01 00000000 00000002 ${ack} 00000001`,
        'batch 1 of 1: ack count 2 at value byte 59 needs 24 bytes of acks from value byte 63, found 16',
      ],
      [
        `43525749 02 00000000 00000001 ${ack} 00000001`,
        'batch 2 of 2 at value byte 75 needs 8 bytes (u32 base_seq, u32 ack count), found 4',
      ],
      [`43525749 01 00000000 00000001 ${ack} ff`, '1 bytes after the last batch, from value byte 75, expected none'],
    ];
    for (const [hex, problem] of cases) {
      const tail = Buffer.from(hex.replaceAll(' ', ''), 'hex');
      const decoded = decodeMemoValue(Buffer.concat([v3, tail]));
      expect(decoded.ok, hex).toBe(true);
      expect(decoded.ok && decoded.value.batch, hex).toEqual(memo.batch);
      expect(decoded.ok && decoded.value.window, hex).toBeUndefined();
      expect(decoded.ok && decoded.value.ignoredTail, hex).toEqual({
        part: 'window',
        at: 50,
        bytes: tail.length,
        problem,
      });
    }
    const torn = new Reader(Buffer.from('4352574901000000', 'hex'));
    expect(readWindowTail(torn, 50).ignored?.bytes).toBe(8);
    expect(torn.remaining).toBe(0);
    const whole = Buffer.from(`43525749 01 00000000 00000001 ${ack}`.replaceAll(' ', ''), 'hex');
    const decoded = decodeMemoValue(Buffer.concat([v3, whole]));
    expect(decoded.ok && decoded.value.window).toEqual([{ baseSeq: 0, acks: [{ partition: 1, offset: 9n }] }]);
    expect(decoded.ok && decoded.value.ignoredTail).toBeUndefined();
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
