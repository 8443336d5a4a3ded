/**
 * decodeStateRecord (storage/producer-state/decode.ts): one `__producer_state` record as `state dump` shows it, and
 * the findings its bytes alone reveal. Keys and values come from the codec's own encoders, then are cut, padded or
 * made inconsistent the way a damaged or foreign file would be.
 */
import { describe, expect, it } from 'vitest';
import { decodeStateRecord } from '../../../src/storage/producer-state/decode.js';
import type { StateFinding } from '../../../src/storage/producer-state/types.js';
import {
  ALLOCATOR_KEY,
  encodeAllocatorValue,
  encodeIdentityKey,
  encodeIdentityValue,
  encodeMemoKey,
  encodeMemoValue,
} from '../../../src/storage/producer-state-codec.js';

function decode(key: Buffer, value: Buffer, valuePosition?: number) {
  const findings: StateFinding[] = [];
  const entry = decodeStateRecord(
    { file: 'f.log', partition: 3, offset: 7n, position: 90, timestamp: 1n, key, value, valuePosition },
    findings,
  );
  return { entry, findings: findings.map((f) => [f.kind, f.message]), raw: findings };
}

const memoKey = encodeMemoKey(5n, 'orders');
const memo = (extra: Partial<Parameters<typeof encodeMemoValue>[0]> = {}) =>
  encodeMemoValue({ lastSeq: 9, lastOffset: 70n, lastPartition: 2, epoch: 1, ...extra });

describe('decodeStateRecord', () => {
  it('decodes each kind in full with no findings, and a tombstone as its key', () => {
    const id = decode(encodeIdentityKey('p'), encodeIdentityValue({ producerId: 5n, epoch: 2 }));
    expect(id.entry).toMatchObject({ kind: 'identity', producerName: 'p', producerId: 5n, epoch: 2, tombstone: false });
    expect(id.findings).toEqual([]);
    expect(decode(ALLOCATOR_KEY, encodeAllocatorValue(42n)).entry).toMatchObject({ kind: 'allocator', nextPid: 42n });
    const m = decode(memoKey, memo());
    expect(m.entry).toMatchObject({ kind: 'memo', producerId: 5n, topic: 'orders', epoch: 1 });
    expect(m.entry.memo).toEqual({ version: 2, lastSeq: 9, lastOffset: 70n, lastPartition: 2, epoch: 1 });
    expect(m.findings).toEqual([]);
    const t = decode(memoKey, Buffer.alloc(0));
    expect(t.entry).toMatchObject({ kind: 'memo', tombstone: true, valueBytes: 0, topic: 'orders' });
    expect(t.entry.memo).toBeUndefined();
    expect(t.findings).toEqual([]);
  });

  it('an unknown tag and a bad key are findings, placed at the record', () => {
    const unknown = decode(Buffer.from([0x7f, 1, 2]), Buffer.from([1]));
    expect(unknown.entry.kind).toBe('undecodable');
    expect(unknown.entry.key).toBe('7f0102');
    expect(unknown.findings.map(([k]) => k)).toEqual(['unknown-tag']);
    expect(unknown.raw[0]).toMatchObject({ file: 'f.log', offset: 7n, position: 90 });
    const bad = decode(Buffer.from([0x02, 0, 0]), memo());
    expect(bad.findings.map(([k]) => k)).toEqual(['bad-key']);
    expect(bad.entry.problem).toBe(bad.findings[0]![1]);
  });

  it('values too short to decode, and values longer than their layout', () => {
    expect(decode(ALLOCATOR_KEY, Buffer.alloc(3)).findings).toEqual([
      ['wrong-length', 'allocator value of 3 bytes, needs 8'],
    ]);
    expect(decode(ALLOCATOR_KEY, Buffer.alloc(9)).findings).toEqual([
      ['wrong-length', 'allocator value of 9 bytes, expected 8'],
    ]);
    expect(decode(encodeIdentityKey('p'), Buffer.alloc(12)).findings).toEqual([
      ['wrong-length', 'identity value of 12 bytes, expected 10'],
    ]);
    // 17 bytes: a v1 memo (16) with one stray byte.
    const v1 = decode(memoKey, Buffer.concat([memo().subarray(0, 16), Buffer.from([0])]));
    expect(v1.entry.memo?.version).toBe(1);
    expect(v1.findings).toEqual([['wrong-length', 'memo value of 17 bytes: v1 is 16, v2 18']]);
  });

  it('a v3 tail that is not whole is read as v2 and reported with its value and file byte offsets', () => {
    const asV2 = 'the memo is used as v2: last_seq only, the batch acks are not replayed';
    const cut = decode(memoKey, Buffer.concat([memo(), Buffer.alloc(5)]), 200);
    expect(cut.entry.memo?.version).toBe(2);
    // With the value's file position known (scan.ts sets it), the file byte is given too.
    expect(cut.findings).toEqual([
      [
        'bad-v3-tail',
        'v3 tail (5 bytes from value byte 18, file byte 218) is not whole: ' +
          `expected at least 20 bytes (u32 base_seq, u32 ack count, 12 per ack), found 5; ${asV2}`,
      ],
    ]);
    const short = memo({
      batch: {
        baseSeq: 8,
        acks: [
          { partition: 1, offset: 10n },
          { partition: 2, offset: 70n },
        ],
      },
    });
    const torn = decode(memoKey, short.subarray(0, short.length - 4), 200);
    expect(torn.entry.memo?.version).toBe(2);
    expect(torn.findings).toEqual([
      [
        'bad-v3-tail',
        'v3 tail (28 bytes from value byte 18, file byte 218) is not whole: ' +
          `ack count 2 at value byte 22 needs 24 bytes of acks from value byte 26, found 20; ${asV2}`,
      ],
    ]);
    const zero = Buffer.concat([memo().subarray(0, 18), Buffer.alloc(8)]);
    expect(decode(memoKey, zero).findings[0]?.[1]).toContain('ack count 0 at value byte 22, expected 1..1024');
  });

  it('a window tail that is not whole keeps the v3 memo, and says so (not "read as v2")', () => {
    const acks = [{ partition: 1, offset: 10n }];
    const window = [{ baseSeq: 4, acks: [{ partition: 2, offset: 3n }] }];
    const whole = memo({ lastSeq: 8, lastPartition: 1, lastOffset: 10n, batch: { baseSeq: 8, acks }, window });
    // v3 part: 18 + 8 + 12 = 38 bytes; the window tail after it is 5 + 8 + 12 = 25.
    expect(whole.length).toBe(63);
    const torn = decode(memoKey, whole.subarray(0, 60));
    expect(torn.entry.memo).toMatchObject({ version: 3, baseSeq: 8, acks });
    expect(torn.findings).toEqual([
      [
        'bad-window-tail',
        'window tail (22 bytes from value byte 38) is not whole: batch 1 of 1: ack count 1 at value byte 47 needs ' +
          "12 bytes of acks from value byte 51, found 9; the v3 memo is used without its window: resends of the window's " +
          'older batches are not deduplicated',
      ],
    ]);
    expect(torn.raw[0]?.position).toBe(90);
    const foreign = Buffer.concat([whole.subarray(0, 38), Buffer.from('deadbeef01', 'hex')]);
    expect(decode(memoKey, foreign).findings[0]?.[1]).toContain(
      'magic 0xdeadbeef at value byte 38, expected 0x43525749 ("CRWI")',
    );
    const extra = Buffer.concat([whole, Buffer.alloc(2)]);
    expect(decode(memoKey, extra).findings[0]?.[1]).toContain('2 bytes after the last batch, from value byte 63');
  });

  it('a whole v3 memo: consistent, or each inconsistency named', () => {
    const acks = [
      { partition: 1, offset: 10n },
      { partition: 2, offset: 70n },
    ];
    const good = decode(memoKey, memo({ batch: { baseSeq: 8, acks } }));
    expect(good.entry.memo).toMatchObject({ version: 3, baseSeq: 8, acks });
    expect(good.findings).toEqual([]);
    const off = decode(memoKey, memo({ lastSeq: 12, lastOffset: 71n, batch: { baseSeq: 8, acks } }));
    expect(off.findings).toEqual([
      ['memo-inconsistent', 'last_seq 12 but the batch covers 8..9'],
      ['memo-inconsistent', 'last ack 2@70 differs from last_partition/last_offset 2@71'],
    ]);
    // A batch that wraps the u32 sequence space ends at (base + n - 1) mod 2^32.
    const wrap = decode(memoKey, memo({ lastSeq: 0, batch: { baseSeq: 0xffff_ffff, acks } }));
    expect(wrap.findings).toEqual([]);
  });

  it('a "no ack" memo is flagged as such', () => {
    const none = decode(memoKey, memo({ lastSeq: 0xffff_ffff, lastOffset: 0n, lastPartition: 0 }));
    expect(none.entry.memo).toMatchObject({ version: 2, noAck: true, lastSeq: 0xffff_ffff });
    expect(none.findings).toEqual([]);
  });
});
