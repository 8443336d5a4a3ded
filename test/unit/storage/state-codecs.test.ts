import { describe, expect, it } from 'vitest';
import {
  decodeOffsetKey,
  decodeOffsetValue,
  encodeOffsetKey,
  encodeOffsetValue,
  offsetsPartition,
} from '../../../src/storage/offsets-codec.js';
import {
  ALLOCATOR_KEY,
  decodeMemoValue,
  decodeProducerStateKey,
  decodeProducerStateRecord,
  encodeAllocatorValue,
  encodeIdentityKey,
  encodeIdentityValue,
  encodeMemoKey,
  encodeMemoValue,
} from '../../../src/storage/producer-state-codec.js';
import {
  TxnState,
  decodeTxnStateValue,
  encodeTxnStateValue,
  txnStateName,
  txnStatePartition,
} from '../../../src/storage/txn-state-codec.js';

const v2 = { lastSeq: 4, lastOffset: 4096n, lastPartition: 3, epoch: 2 };

describe('__producer_state codec', () => {
  it('v3 memo round-trips with its batch acks', () => {
    const acks = [
      { partition: 1, offset: 0n },
      { partition: 2, offset: 77n },
    ];
    const bytes = encodeMemoValue({ ...v2, batch: { baseSeq: 3, acks } });
    expect(bytes.length).toBe(18 + 8 + 24);
    expect(decodeMemoValue(bytes)).toEqual({ ok: true, value: { version: 3, ...v2, batch: { baseSeq: 3, acks } } });
  });

  it('a v1 (16-byte) memo has no epoch', () => {
    const decoded = decodeMemoValue(encodeMemoValue(v2).subarray(0, 16));
    expect(decoded).toEqual({ ok: true, value: { ...v2, version: 1, epoch: undefined, batch: undefined } });
  });

  it('a v3 tail that is short, out of range or past the bytes is ignored: the memo acts as v2', () => {
    const full = encodeMemoValue({ ...v2, batch: { baseSeq: 3, acks: [{ partition: 1, offset: 5n }] } });
    const cases = [
      full.subarray(0, 18 + 5), // fewer than 8 tail bytes
      full.subarray(0, 18 + 8 + 11), // count 1 but 11 of 12 ack bytes
      Buffer.concat([full.subarray(0, 22), Buffer.from([0, 0, 0, 0])]), // count 0
      Buffer.concat([full.subarray(0, 22), Buffer.from([0, 0, 4, 1]), Buffer.alloc(1025 * 12)]), // count 1025
    ];
    for (const bytes of cases) {
      const d = decodeMemoValue(bytes);
      expect(d.ok && d.value.version).toBe(2);
      expect(d.ok && d.value.batch).toBeUndefined();
      expect(d.ok && d.value.ignoredTail).toMatchObject({ part: 'v3', at: 18, bytes: bytes.length - 18 });
    }
  });

  it('reports a short value, an unknown tag and a bad allocator key as problems, without throwing', () => {
    expect(decodeMemoValue(Buffer.alloc(15))).toMatchObject({ ok: false, problem: 'wrong-length' });
    expect(decodeProducerStateKey(Buffer.from([0x09, 1]))).toMatchObject({ ok: false, problem: 'unknown-tag' });
    expect(decodeProducerStateKey(Buffer.alloc(0))).toMatchObject({ ok: false, problem: 'empty-key' });
    expect(decodeProducerStateKey(Buffer.from([0x03, 0x61]))).toMatchObject({ ok: false, problem: 'bad-key' });
    expect(decodeProducerStateKey(Buffer.from([0x02, 0, 0]))).toMatchObject({ ok: false, problem: 'bad-key' });
    expect(decodeProducerStateRecord(encodeIdentityKey('app'), Buffer.alloc(9))).toMatchObject({
      ok: false,
      problem: 'wrong-length',
    });
  });

  it('decodes whole records, with a zero-length value as a tombstone', () => {
    const identity = encodeIdentityValue({ producerId: 5n, epoch: 1 });
    expect(decodeProducerStateRecord(encodeIdentityKey('app'), identity)).toEqual({
      ok: true,
      value: { kind: 'identity', producerName: 'app', value: { producerId: 5n, epoch: 1 } },
    });
    expect(decodeProducerStateRecord(encodeMemoKey(5n, 'orders'), Buffer.alloc(0))).toEqual({
      ok: true,
      value: { kind: 'memo', producerId: 5n, topic: 'orders', value: undefined },
    });
    expect(decodeProducerStateRecord(ALLOCATOR_KEY, encodeAllocatorValue(42n))).toEqual({
      ok: true,
      value: { kind: 'allocator', value: 42n },
    });
  });
});

describe('__consumer_offsets codec', () => {
  it('round-trips key and value; a zero-length value is a tombstone', () => {
    const key = { group: 'g', topic: 'orders', partition: 7 };
    expect(decodeOffsetKey(encodeOffsetKey(key))).toEqual({ ok: true, value: key });
    expect(decodeOffsetValue(encodeOffsetValue(2n ** 60n))).toEqual({ ok: true, value: 2n ** 60n });
    expect(decodeOffsetValue(Buffer.alloc(0))).toEqual({ ok: true, value: undefined });
    expect(offsetsPartition(Buffer.from('billing'))).toBe(offsetsPartition('billing'));
  });

  it('reports a string past the end, a short key, trailing bytes and a short value', () => {
    const good = encodeOffsetKey({ group: 'g', topic: 't', partition: 1 });
    const past = Buffer.from(good);
    past.writeUInt16BE(200, 0);
    expect(decodeOffsetKey(past)).toMatchObject({ ok: false, problem: 'string-past-end' });
    expect(decodeOffsetKey(good.subarray(0, good.length - 1))).toMatchObject({ ok: false, problem: 'wrong-length' });
    const trailing = Buffer.concat([good, Buffer.from([0])]);
    expect(decodeOffsetKey(trailing)).toMatchObject({ ok: false, problem: 'trailing-bytes' });
    expect(decodeOffsetValue(Buffer.alloc(7))).toMatchObject({ ok: false, problem: 'wrong-length' });
  });
});

describe('__transaction_state codec', () => {
  const record = {
    producerId: 7n,
    epoch: 3,
    state: TxnState.PREPARE_COMMIT,
    participants: [{ topic: 'orders', partition: 2, firstOffset: 4096n }],
    pendingOffsets: [{ group: 'billing', topic: 'orders', partition: 1, offset: 31n }],
  };

  it('round-trips the §10 layout byte for byte', () => {
    const bytes = encodeTxnStateValue(record);
    expect(bytes.length).toBe(11 + 4 + (2 + 6 + 12) + 4 + (2 + 7 + 2 + 6 + 12));
    expect(bytes.subarray(0, 11).toString('hex')).toBe('0000000000000007000302');
    expect(decodeTxnStateValue(bytes)).toEqual({ ok: true, value: record });
    expect(decodeTxnStateValue(Buffer.alloc(0))).toEqual({ ok: true, value: undefined });
    expect(txnStateName(2)).toBe('PREPARE_COMMIT');
    expect(txnStateName(9)).toBe('UNKNOWN_9');
    expect(txnStatePartition('app')).toBeGreaterThanOrEqual(1);
  });

  it('reports every truncation and an absurd count as a problem, never an exception', () => {
    const bytes = encodeTxnStateValue(record);
    for (let len = 1; len < bytes.length; len++) {
      const d = decodeTxnStateValue(bytes.subarray(0, len));
      expect(d.ok).toBe(false);
    }
    const absurd = Buffer.from(bytes);
    absurd.writeUInt32BE(0xffffffff, 11);
    expect(decodeTxnStateValue(absurd)).toMatchObject({ ok: false, problem: 'count-past-end' });
  });
});
