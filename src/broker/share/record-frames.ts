/**
 * SHARE_RECORDS (0xE1) encoded straight into one buffer sized up front: the share path's hot reply (the generic
 * Writer costs as much as acquiring the records). Byte for byte what `encodeFrame(ShareRecordsReply, …)` writes
 * (test/unit/broker/share-record-frames.test.ts holds them equal); the layout is in protocol/messages/share-fetch.ts.
 */
import { CORREL_BYTES, FRAME_HEADER_BYTES, FRAME_LENGTH_BYTES } from '../../protocol/limits.js';
import type { ShareRecords } from '../../protocol/messages/share-fetch.js';
import { Op } from '../../protocol/opcodes.js';

/** str topic · u32 partition · u64 offset · u64 timestamp · u16 delivery_count · u64 lock_deadline · str key · str value. */
const RECORD_FIXED = 4 + 4 + 8 + 8 + 2 + 8 + 4 + 4;
const TWO_32 = 2 ** 32;

export function encodeShareRecordsFrame(correl: Buffer, m: ShareRecords): Buffer {
  const topics = new Map<string, Buffer>();
  const topicBytes = (t: string): Buffer => {
    let b = topics.get(t);
    if (!b) topics.set(t, (b = Buffer.from(t, 'utf8')));
    return b;
  };
  let size = FRAME_LENGTH_BYTES + FRAME_HEADER_BYTES + 8 + 4 + 4;
  for (const r of m.records) size += RECORD_FIXED + topicBytes(r.topic).length + r.key.length + r.value.length;
  for (const x of m.results) size += 4 + topicBytes(x.topic).length + 4 + 2 + 4;
  const buf = Buffer.allocUnsafe(size);
  buf.writeUInt32BE(size - FRAME_LENGTH_BYTES, 0);
  buf[FRAME_LENGTH_BYTES] = Op.SHARE_RECORDS;
  correl.copy(buf, FRAME_LENGTH_BYTES + 1, 0, CORREL_BYTES);
  let pos = FRAME_LENGTH_BYTES + FRAME_HEADER_BYTES;
  pos = u64(buf, m.brokerTimeMs, pos);
  buf.writeUInt32BE(m.records.length, pos);
  pos += 4;
  for (const r of m.records) {
    pos = bytes(buf, topicBytes(r.topic), pos);
    buf.writeUInt32BE(r.partition, pos);
    pos = u64(buf, r.offset, pos + 4);
    pos = u64(buf, r.timestamp, pos);
    buf.writeUInt16BE(r.deliveryCount, pos);
    pos = u64(buf, r.lockDeadlineMs, pos + 2);
    pos = bytes(buf, r.key, pos);
    pos = bytes(buf, r.value, pos);
  }
  buf.writeUInt32BE(m.results.length, pos);
  pos += 4;
  for (const x of m.results) {
    pos = bytes(buf, topicBytes(x.topic), pos);
    buf.writeUInt32BE(x.partition, pos);
    buf.writeUInt16BE(x.errorCode, pos + 4);
    buf.writeUInt32BE(x.records, pos + 6);
    pos += 10;
  }
  return buf;
}

function bytes(buf: Buffer, b: Uint8Array, pos: number): number {
  buf.writeUInt32BE(b.length, pos);
  buf.set(b, pos + 4);
  return pos + 4 + b.length;
}

/** A Number split where the value is a safe integer (several times cheaper than writeBigUInt64BE). */
function u64(buf: Buffer, v: bigint, pos: number): number {
  const n = Number(v);
  if (n >= 0 && n <= Number.MAX_SAFE_INTEGER) {
    buf.writeUInt32BE(Math.floor(n / TWO_32), pos);
    buf.writeUInt32BE(n >>> 0, pos + 4);
  } else buf.writeBigUInt64BE(BigInt.asUintN(64, v), pos);
  return pos + 8;
}
