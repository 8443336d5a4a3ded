import { describe, expect, it } from 'vitest';
import { DecodeError } from '../../../src/errors.js';
import { decodePayload, encodePayload } from '../../../src/protocol/message.js';
import { type FetchedRecord, RecordBatchReply } from '../../../src/protocol/messages/fetch.js';

function rec(topic: string, offset: bigint, key: string, value: Buffer, partition = 1): FetchedRecord {
  return {
    topic,
    partition,
    offset,
    timestamp: (offset % 2n ** 63n) + 1_700_000_000_000n,
    key: Buffer.from(key),
    value,
  };
}

const batch: FetchedRecord[] = [
  rec('aa', 0n, 'k0', Buffer.from('v0')),
  rec('aa', 31n, '', Buffer.alloc(0)),
  // Same length as the topic before: told apart by its bytes, not its length.
  rec('ab', 2n ** 53n + 1n, 'k2', Buffer.alloc(300, 2), 7),
  rec('ab', 2n ** 64n - 1n, 'k3', Buffer.from('v3'), 0xffff_ffff),
  rec('zürich-ü', 5n, 'k4', Buffer.from('v4')),
  rec('aa', 6n, 'k5', Buffer.from('v5')),
];

describe('RECORD_BATCH decode (header-less hot path)', () => {
  it('decodes every field exactly, topics told apart by bytes, u64s past 2^53 included', () => {
    const { records } = decodePayload(RecordBatchReply, encodePayload(RecordBatchReply, { records: batch }));
    expect(records).toEqual(batch);
    expect(records[3]!.offset).toBe(2n ** 64n - 1n);
    expect(records[3]!.timestamp).toBe(2n ** 63n - 1n + 1_700_000_000_000n);
    expect(Object.keys(records[0]!)).toEqual(['topic', 'partition', 'offset', 'timestamp', 'key', 'value']);
  });

  it('fails every truncation with a DecodeError naming the entry and field, at an offset inside the bytes', () => {
    const bytes = encodePayload(RecordBatchReply, { records: batch });
    for (let len = 0; len < bytes.length; len++) {
      const prefix = Buffer.from(bytes.subarray(0, len));
      let err: unknown;
      try {
        decodePayload(RecordBatchReply, prefix);
      } catch (e) {
        err = e;
      }
      expect(err, `prefix of ${len} bytes`).toBeInstanceOf(DecodeError);
      const e = err as DecodeError;
      expect(e.field).toMatch(/^(count|records\[\d+\]\.(topic|partition|offset|timestamp_ms|key|value))$/);
      expect(e.offset).toBeLessThanOrEqual(len);
    }
  });

  it('names the field and offset of a length over the cap, and a count the bytes cannot hold', () => {
    const bytes = encodePayload(RecordBatchReply, { records: batch.slice(0, 2) });
    // records[1].value's length field: after count, entry 0 (4+2 + 4+8+8 + 4+2 + 4+2) and entry 1 up to the value.
    const at = 4 + 38 + (4 + 2 + 4 + 8 + 8 + 4);
    expect(bytes.readUInt32BE(at)).toBe(0);
    bytes.writeUInt32BE(70_000, at);
    expect(() => decodePayload(RecordBatchReply, bytes)).toThrow(
      expect.objectContaining({ field: 'records[1].value', offset: at, message: expect.stringContaining('too long') }),
    );
    const count = Buffer.from(bytes);
    count.writeUInt32BE(1000, 0);
    expect(() => decodePayload(RecordBatchReply, count)).toThrow(
      expect.objectContaining({ field: 'count', offset: 0 }),
    );
  });

  it('decodes random batches inside a larger frame exactly, views over the frame, shared timestamps included', () => {
    let seed = 12345;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const u64 = (): bigint =>
      [0n, 1n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 53n + 7n, 2n ** 64n - 1n][rand(6)]! + BigInt(rand(3));
    for (let round = 0; round < 50; round++) {
      let ts = u64();
      const records = Array.from({ length: rand(40) }, (_, i): FetchedRecord => {
        // Runs of equal timestamps, and neighbours that differ only in the high or the low half.
        const r = rand(4);
        if (r === 1) ts = u64();
        else if (r === 2) ts ^= 1n << 40n;
        else if (r === 3) ts ^= 1n;
        return {
          topic: ['t', 'u', 'topic-ü'][rand(3)]!,
          partition: rand(2) === 0 ? i : 0xffff_ffff,
          offset: u64(),
          timestamp: ts & (2n ** 64n - 1n),
          key: Buffer.from(Array.from({ length: rand(12) }, () => rand(256))),
          value: Buffer.alloc(rand(300), rand(256)),
        };
      });
      const bytes = encodePayload(RecordBatchReply, { records });
      // The payload as the client gets it: a view into a received chunk, not at its start.
      const chunk = Buffer.alloc(bytes.length + 23, 0xee);
      bytes.copy(chunk, 17);
      const payload = chunk.subarray(17, 17 + bytes.length);
      const decoded = decodePayload(RecordBatchReply, payload).records;
      expect(decoded).toEqual(records);
      for (const r of decoded) {
        expect(r.key.buffer).toBe(chunk.buffer);
        expect(r.value.buffer).toBe(chunk.buffer);
      }
      const last = decoded.at(-1);
      if (last && last.value.length > 0) {
        // Views, not copies: a byte written into the frame shows in the record.
        chunk[last.value.byteOffset - chunk.byteOffset] = ~last.value[0]! & 0xff;
        expect(last.value[0]).toBe(chunk[last.value.byteOffset - chunk.byteOffset]);
      }
    }
  });
});
