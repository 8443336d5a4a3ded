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

function decode(key: Buffer, value: Buffer) {
  const findings: StateFinding[] = [];
  const entry = decodeStateRecord(
    { file: 'f.log', partition: 3, offset: 7n, position: 90, timestamp: 1n, key, value },
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

  it('a v3 tail that is not whole is read as v2 and reported', () => {
    const cut = decode(memoKey, Buffer.concat([memo(), Buffer.alloc(5)]));
    expect(cut.entry.memo?.version).toBe(2);
    expect(cut.findings).toEqual([['bad-v3-tail', '5 trailing bytes, too few for a v3 tail; read as v2']]);
    const short = memo({
      batch: {
        baseSeq: 8,
        acks: [
          { partition: 1, offset: 10n },
          { partition: 2, offset: 70n },
        ],
      },
    });
    const torn = decode(memoKey, short.subarray(0, short.length - 4));
    expect(torn.findings).toEqual([['bad-v3-tail', 'v3 ack count 2 needs 24 bytes, 20 present; read as v2']]);
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
