import { describe, expect, it } from 'vitest';
import { DecodeError } from '../../../src/errors.js';
import { decodePayload, encodePayload } from '../../../src/protocol/message.js';
import {
  ProduceBatchAckTableReply,
  decodeProduceBatchTable,
} from '../../../src/protocol/messages/produce-batch-table.js';
import {
  type BatchRecord,
  ProduceBatchAckReply,
  ProduceBatchRequest,
} from '../../../src/protocol/messages/produce-batch.js';
import { BatchFlag } from '../../../src/protocol/opcodes.js';
import { prng } from '../../helpers/prng.js';

function randomRecords(seed: number, n: number): BatchRecord[] {
  const rnd = prng(seed);
  const bytes = (len: number): Buffer => Buffer.from(Array.from({ length: len }, () => Math.floor(rnd() * 256)));
  return Array.from({ length: n }, () => ({
    key: bytes(rnd() < 0.3 ? 0 : Math.floor(rnd() * 20)),
    value: bytes(rnd() < 0.2 ? 0 : Math.floor(rnd() * 300)),
  }));
}

function decodeError(fn: () => unknown): DecodeError {
  try {
    fn();
  } catch (err) {
    if (err instanceof DecodeError) return err;
    throw err;
  }
  throw new Error('no DecodeError');
}

describe('decodeProduceBatchTable', () => {
  it.each([
    [0, undefined],
    [BatchFlag.PARTITION, 3],
  ])('finds the keys and values decode gives, and the same head fields (flags %i)', (flags, partition) => {
    const records = randomRecords(flags + 1, 50);
    const payload = encodePayload(ProduceBatchRequest, { flags, codec: 0, topic: 'orders', partition, records });
    const t = decodeProduceBatchTable(payload)!;
    const decoded = decodePayload(ProduceBatchRequest, payload);
    expect(t.head).toEqual({ ...decoded, records: [] });
    expect(t.count).toBe(50);
    const keys = Array.from({ length: t.count }, (_, i) =>
      t.src.subarray(t.table[4 * i], t.table[4 * i]! + t.table[4 * i + 1]!),
    );
    const values = Array.from({ length: t.count }, (_, i) =>
      t.src.subarray(t.table[4 * i + 2], t.table[4 * i + 2]! + t.table[4 * i + 3]!),
    );
    expect(keys).toEqual(decoded.records.map((r) => r.key));
    expect(values).toEqual(decoded.records.map((r) => r.value));
  });

  it('leaves a batch with HEADERS to the record decoder', () => {
    const records = [
      { key: Buffer.from('k'), value: Buffer.from('v'), headers: [{ name: 'h', value: Buffer.from('x') }] },
    ];
    const payload = encodePayload(ProduceBatchRequest, { flags: BatchFlag.HEADERS, codec: 0, topic: 't', records });
    expect(decodeProduceBatchTable(payload)).toBeUndefined();
  });

  it('throws the DecodeError decode throws for every truncation and for an over-cap length', () => {
    const records = randomRecords(9, 6);
    const payload = encodePayload(ProduceBatchRequest, { flags: 0, codec: 0, topic: 'orders', records });
    for (let cut = 0; cut < payload.length; cut++) {
      const bytes = payload.subarray(0, cut);
      const want = decodeError(() => decodePayload(ProduceBatchRequest, bytes));
      const got = decodeError(() => decodeProduceBatchTable(bytes));
      expect([got.field, got.offset, got.message]).toEqual([want.field, want.offset, want.message]);
    }
    const overCap = Buffer.from(payload);
    const keyLenAt = 2 + 4 + 'orders'.length + 4;
    overCap.writeUInt32BE(65_537, keyLenAt);
    const want = decodeError(() => decodePayload(ProduceBatchRequest, overCap));
    expect(decodeError(() => decodeProduceBatchTable(overCap)).message).toBe(want.message);
  });
});

describe('ProduceBatchAckTableReply', () => {
  it('encodes the bytes ProduceBatchAckReply does, and decodes them back', () => {
    const rnd = prng(5);
    const n = 300;
    const partitions = Uint16Array.from({ length: n }, () => 1 + Math.floor(rnd() * 64));
    const offsets = Float64Array.from({ length: n }, () => Math.floor(rnd() * 2 ** 53));
    offsets[0] = 0;
    offsets[1] = Number.MAX_SAFE_INTEGER;
    for (const [count, errorCode, errorMessage] of [
      [n, 0, ''],
      [120, 7, '120 of 300 records appended: write failed'],
    ] as const) {
      const acks = Array.from({ length: count }, (_, i) => ({
        partition: partitions[i]!,
        offset: BigInt(offsets[i]!),
      }));
      const want = encodePayload(ProduceBatchAckReply, { acks, errorCode, errorMessage });
      const got = encodePayload(ProduceBatchAckTableReply, { count, partitions, offsets, errorCode, errorMessage });
      expect(got.equals(want)).toBe(true);
      const back = decodePayload(ProduceBatchAckTableReply, got);
      expect(back.count).toBe(count);
      expect([...back.offsets]).toEqual([...offsets.subarray(0, count)]);
    }
  });

  it('refuses an offset that is not a safe non-negative integer', () => {
    const message = {
      count: 1,
      partitions: Uint16Array.of(1),
      offsets: Float64Array.of(-1),
      errorCode: 0,
      errorMessage: '',
    };
    expect(() => encodePayload(ProduceBatchAckTableReply, message)).toThrow(/does not fit a u64/);
  });
});
