import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/protocol/error-codes.js';
import { decodePayload, encodePayload } from '../../../src/protocol/message.js';
import { FetchRequest, RecordBatchReply, RecordBatchWithHeadersReply } from '../../../src/protocol/messages/fetch.js';
import { IdentifyClientRequest } from '../../../src/protocol/messages/identify.js';
import { JoinGroupRequest } from '../../../src/protocol/messages/join-group.js';
import { ListOffsetsRequest, OffsetsReply } from '../../../src/protocol/messages/list-offsets.js';
import { ProduceBatchRequest } from '../../../src/protocol/messages/produce-batch.js';
import { ProduceRequest } from '../../../src/protocol/messages/produce.js';
import { Op } from '../../../src/protocol/opcodes.js';
import {
  decodeReply,
  decodeRequest,
  expectsReply,
  isSuccessReply,
  isSupportedRequestOp,
  replyCodecFor,
  requestCodecFor,
} from '../../../src/protocol/registry.js';
import { Writer } from '../../../src/protocol/writer.js';
import { expectDecodeError } from './fixtures.js';

const k = Buffer.from('k');

/** A PRODUCE_BATCH payload with an arbitrary count and `entries` empty key/value pairs. */
function batchPayload(count: number, entries: number): Buffer {
  const w = new Writer().u8(0).u8(0).str('orders').u32(count);
  for (let i = 0; i < entries; i++) w.str('').str('');
  return Buffer.from(w.finish());
}

describe('malformed payloads fail with a DecodeError naming the field (the broker answers ERR 1)', () => {
  it('a key length past the end of the payload', () => {
    const bytes = encodePayload(ProduceRequest, { codec: 0, topic: 'orders', key: k, value: k });
    bytes.writeUInt32BE(1000, 1 + 4 + 6);
    const e = expectDecodeError(() => decodePayload(ProduceRequest, bytes));
    expect(e.field).toBe('key');
    expect(e.offset).toBe(11);
  });

  it('a 250-byte topic is over the 249 cap, though every byte is present', () => {
    const bytes = encodePayload(ProduceRequest, { codec: 0, topic: 't'.repeat(250), key: k, value: k });
    expect(expectDecodeError(() => decodePayload(ProduceRequest, bytes)).field).toBe('topic');
    const ok = encodePayload(ProduceRequest, { codec: 0, topic: 't'.repeat(249), key: k, value: k });
    expect(decodePayload(ProduceRequest, ok).topic).toHaveLength(249);
  });

  it('a value over 65,536 bytes is refused; exactly 65,536 is accepted as a view of the payload', () => {
    const big = encodePayload(ProduceRequest, { codec: 0, topic: 'o', key: k, value: Buffer.alloc(65_537) });
    expect(expectDecodeError(() => decodePayload(ProduceRequest, big)).field).toBe('value');
    const max = encodePayload(ProduceRequest, { codec: 0, topic: 'o', key: k, value: Buffer.alloc(65_536, 1) });
    const decoded = decodePayload(ProduceRequest, max);
    expect(decoded.value.length).toBe(65_536);
    expect(decoded.value.buffer).toBe(max.buffer);
  });

  it('IDENTIFY_CLIENT name over 128 bytes', () => {
    const bytes = encodePayload(IdentifyClientRequest, { name: 'n'.repeat(129), version: '1' });
    expect(expectDecodeError(() => decodePayload(IdentifyClientRequest, bytes)).field).toBe('name');
  });

  it('PRODUCE_BATCH count 0, count 10,001, and a count larger than the payload could hold', () => {
    expect(expectDecodeError(() => decodePayload(ProduceBatchRequest, batchPayload(0, 0))).message).toMatch(
      /at least 1/,
    );
    expect(expectDecodeError(() => decodePayload(ProduceBatchRequest, batchPayload(10_001, 10_001))).message).toMatch(
      /exceeds the limit of 10000/,
    );
    expect(decodePayload(ProduceBatchRequest, batchPayload(10_000, 10_000)).records).toHaveLength(10_000);
    const huge = expectDecodeError(() => decodePayload(ProduceBatchRequest, batchPayload(5_000, 2)));
    expect(huge.field).toBe('count');
    expect(huge.message).toMatch(/cannot fit/);
  });

  it('PRODUCE_BATCH names the failing entry: records[1].value', () => {
    const w = new Writer().u8(0).u8(0).str('orders').u32(2).str('a').str('b').str('c').u32(99);
    const e = expectDecodeError(() => decodePayload(ProduceBatchRequest, Buffer.from(w.finish())));
    expect(e.field).toBe('records[1].value');
  });

  it('JOIN_GROUP with topic_count 0 or 257', () => {
    const zero = new Writer().str('g').str('').u32(0).finish();
    expect(expectDecodeError(() => decodePayload(JoinGroupRequest, Buffer.from(zero))).field).toBe('topic_count');
    const many = new Writer().str('g').str('').u32(257);
    for (let i = 0; i < 257; i++) many.str('t');
    const tooMany = expectDecodeError(() => decodePayload(JoinGroupRequest, Buffer.from(many.finish())));
    expect(tooMany.message).toMatch(/limit of 256/);
  });

  it('LIST_OFFSETS mode 2, and mode 1 without its timestamp', () => {
    const bad = new Writer().str('orders').u8(2).finish();
    expect(expectDecodeError(() => decodePayload(ListOffsetsRequest, Buffer.from(bad))).field).toBe('mode');
    const short = new Writer().str('orders').u8(1).finish();
    expect(expectDecodeError(() => decodePayload(ListOffsetsRequest, Buffer.from(short))).field).toBe('timestamp_ms');
  });

  it('OFFSETS with 0 partitions, or more than 1024, is refused', () => {
    expect(expectDecodeError(() => decodePayload(OffsetsReply, Buffer.from([0, 0, 0, 0]))).field).toBe('n');
    const many = Buffer.alloc(4 + 1025 * 37);
    many.writeUInt32BE(1025, 0);
    expect(expectDecodeError(() => decodePayload(OffsetsReply, many)).message).toMatch(/limit of 1024/);
  });
});

describe('optional and mode-dependent layouts', () => {
  const partition = { partition: 1, earliest: 0n, latest: 9n, highWatermark: 9n, lso: 9n, flags: 7 };

  it('OFFSETS from an old broker: exactly n entries and fewer than 4 trailing bytes means no for_times', () => {
    const bytes = Buffer.concat([encodePayload(OffsetsReply, { partitions: [partition] }), Buffer.from([1, 2, 3])]);
    expect(decodePayload(OffsetsReply, bytes).forTimes).toBeUndefined();
  });

  it('FETCH from an old client: no isolation or flags byte', () => {
    const bytes = new Writer().str('orders').str('g').u32(5).finish();
    expect(decodePayload(FetchRequest, Buffer.from(bytes))).toEqual({ topic: 'orders', group: 'g', maxRecords: 5 });
  });

  it('FETCH with only flags set writes isolation 0 before them', () => {
    const bytes = encodePayload(FetchRequest, { topic: 't', group: 'g', maxRecords: 1, flags: 1 });
    expect(bytes.subarray(-2)).toEqual(Buffer.from([0, 1]));
  });

  it('RECORD_BATCH needs the mode: the same bytes read with headers give different records', () => {
    const rec = { topic: 'orders', partition: 1, offset: 0n, timestamp: 1n, key: k, value: k, headers: [] };
    const withHeaders = encodePayload(RecordBatchWithHeadersReply, { records: [rec] });
    expect(decodePayload(RecordBatchWithHeadersReply, withHeaders).records[0]!.headers).toEqual([]);
    const plain = decodePayload(RecordBatchReply, withHeaders);
    expect(plain.records[0]!.headers).toBeUndefined();
  });

  it('RECORD_BATCH with header blocks: empty blocks take the raw-index path, one non-empty block the strict one', () => {
    const rec = (offset: bigint, headers: Array<{ name: string; value: Buffer }>) => ({
      topic: 'orders',
      partition: 1,
      offset,
      timestamp: 1n,
      key: k,
      value: k,
      headers,
    });
    const empty = [rec(0n, []), rec(1n, [])];
    const fast = decodePayload(
      RecordBatchWithHeadersReply,
      encodePayload(RecordBatchWithHeadersReply, { records: empty }),
    );
    expect(fast.records).toEqual(empty);
    // Each record gets a list of its own, as the strict decoder gives.
    expect(fast.records[0]!.headers).not.toBe(fast.records[1]!.headers);
    const mixed = [rec(0n, []), rec(1n, [{ name: 'trace', value: Buffer.from('x') }]), rec(2n, [])];
    const strict = encodePayload(RecordBatchWithHeadersReply, { records: mixed });
    expect(decodePayload(RecordBatchWithHeadersReply, strict).records).toEqual(mixed);
  });

  it('RECORD_BATCH reuses the topic string of the previous entry and views keys in the payload', () => {
    const rec = (offset: bigint) => ({ topic: 'orders', partition: 1, offset, timestamp: 1n, key: k, value: k });
    const bytes = encodePayload(RecordBatchReply, { records: [rec(0n), rec(1n)] });
    const { records } = decodePayload(RecordBatchReply, bytes);
    expect(records[1]!.topic).toBe('orders');
    expect(records[0]!.key.buffer).toBe(bytes.buffer);
  });
});

describe('registry', () => {
  it('an unknown opcode, and the retired PING, are data the broker turns into ERR 2 "op 0xNN"', () => {
    for (const op of [0x09, 0x7f, 0x22]) {
      const found = decodeRequest(op, Buffer.alloc(0));
      expect(found.name).toBeUndefined();
      if (found.name !== undefined) continue;
      expect(found.errorCode).toBe(ErrorCode.UNKNOWN_OP);
      expect(found.message).toBe(`op 0x${op.toString(16).padStart(2, '0')}`);
    }
    expect(isSupportedRequestOp(0x09)).toBe(false);
    expect(requestCodecFor(0x22).name).toBeUndefined();
    expect(replyCodecFor(0x85).name).toBeUndefined();
  });

  it('decodes a known request with its name as discriminant', () => {
    const payload = encodePayload(ProduceRequest, { codec: 0, topic: 'orders', key: k, value: k });
    const d = decodeRequest(Op.PRODUCE, payload);
    expect(d.name).toBe('PRODUCE');
    if (d.name === 'PRODUCE') expect(d.message.topic).toBe('orders');
  });

  it('picks the RECORD_BATCH layout from the headers mode', () => {
    expect(replyCodecFor(Op.RECORD_BATCH, { recordHeaders: true }).name).toBe('RECORD_BATCH');
    const found = replyCodecFor(Op.RECORD_BATCH, { recordHeaders: true });
    expect(found.name !== undefined && found.codec).toBe(RecordBatchWithHeadersReply);
    const d = decodeReply(Op.RECORD_BATCH, encodePayload(RecordBatchReply, { records: [] }));
    expect(d.name === 'RECORD_BATCH' && d.message.records).toEqual([]);
  });

  it('derives reply expectations from the opcode table', () => {
    expect(expectsReply(Op.GOODBYE)).toBe(false);
    expect(expectsReply(Op.PRODUCE)).toBe(true);
    expect(isSuccessReply(Op.FETCH, Op.RECORD_BATCH)).toBe(true);
    expect(isSuccessReply(Op.FETCH, Op.OK)).toBe(true);
    expect(isSuccessReply(Op.PRODUCE, Op.OK)).toBe(false);
    expect(isSuccessReply(Op.PRODUCE, Op.ERROR)).toBe(false);
  });
});
