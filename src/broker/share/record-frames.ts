/**
 * SHARE_RECORDS (0xE1) encoded straight into one buffer sized up front: the share path's hot reply (the generic
 * Writer costs as much as acquiring the records). The records come as pieces, one per run acquired: the log
 * records of one partition with one delivery count and lock deadline, so no object is built per record and the
 * fields a piece shares are encoded once. Byte for byte what `encodeFrame(ShareRecordsReply, …)` writes for the
 * same records (test/unit/broker/share-record-frames.test.ts holds them equal); the layout is in
 * protocol/messages/share-fetch.ts.
 */
import { CORREL_BYTES, FRAME_HEADER_BYTES, FRAME_LENGTH_BYTES } from '../../protocol/limits.js';
import type { ShareAckResult } from '../../protocol/messages/share-acks.js';
import { Op } from '../../protocol/opcodes.js';

/** What a piece needs of a log record. */
export interface PieceRecord {
  offset: bigint;
  timestamp: bigint;
  key: Buffer;
}

export interface ShareRecordPiece {
  topic: string;
  partition: number;
  deliveryCount: number;
  /** Broker-clock ms. */
  lockDeadlineMs: number;
  records: readonly PieceRecord[];
  /** Plaintext values, parallel to `records`. */
  values: readonly Buffer[];
}

/** A SHARE_RECORDS reply as the broker builds it. */
export interface ShareFetchResult {
  brokerTimeMs: bigint;
  pieces: ShareRecordPiece[];
  results: ShareAckResult[];
}

/** u32 partition · u64 offset · u64 timestamp · u16 delivery_count · u64 lock_deadline · u32 key_len · u32 value_len. */
const RECORD_FIXED = 4 + 8 + 8 + 2 + 8 + 4 + 4;
const TWO_32 = 2 ** 32;

export function shareRecordCount(m: ShareFetchResult): number {
  let n = 0;
  for (const p of m.pieces) n += p.records.length;
  return n;
}

export function encodeShareRecordsFrame(correl: Buffer, m: ShareFetchResult): Buffer {
  const topics = new Map<string, Buffer>();
  const topicBytes = (t: string): Buffer => {
    let b = topics.get(t);
    if (!b) topics.set(t, (b = Buffer.from(t, 'utf8')));
    return b;
  };
  let size = FRAME_LENGTH_BYTES + FRAME_HEADER_BYTES + 8 + 4 + 4;
  for (const p of m.pieces) {
    size += p.records.length * (RECORD_FIXED + 4 + topicBytes(p.topic).length);
    for (let i = 0; i < p.records.length; i++) size += p.records[i]!.key.length + p.values[i]!.length;
  }
  for (const x of m.results) size += 4 + topicBytes(x.topic).length + 4 + 2 + 4;
  const buf = Buffer.allocUnsafe(size);
  buf.writeUInt32BE(size - FRAME_LENGTH_BYTES, 0);
  buf[FRAME_LENGTH_BYTES] = Op.SHARE_RECORDS;
  correl.copy(buf, FRAME_LENGTH_BYTES + 1, 0, CORREL_BYTES);
  let pos = u64(buf, Number(m.brokerTimeMs), m.brokerTimeMs, FRAME_LENGTH_BYTES + FRAME_HEADER_BYTES);
  pos = u32(buf, shareRecordCount(m), pos);
  for (const p of m.pieces) pos = writePiece(buf, p, topicBytes(p.topic), pos);
  pos = u32(buf, m.results.length, pos);
  for (const x of m.results) {
    pos = bytes(buf, topicBytes(x.topic), pos);
    pos = u32(buf, x.partition, pos);
    buf[pos++] = x.errorCode >>> 8;
    buf[pos++] = x.errorCode & 0xff;
    pos = u32(buf, x.records, pos);
  }
  return buf;
}

function writePiece(buf: Buffer, p: ShareRecordPiece, topic: Buffer, pos: number): number {
  // The bytes every record of the piece repeats: str topic · u32 partition, and u16 delivery_count · u64 deadline.
  const head = Buffer.allocUnsafe(4 + topic.length + 4);
  u32(head, topic.length, 0);
  head.set(topic, 4);
  u32(head, p.partition, 4 + topic.length);
  const lock = Buffer.allocUnsafe(10);
  lock[0] = p.deliveryCount >>> 8;
  lock[1] = p.deliveryCount & 0xff;
  u64(lock, p.lockDeadlineMs, BigInt(p.lockDeadlineMs), 2);
  const { records, values } = p;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    pos = small(buf, head, pos);
    pos = u64(buf, Number(r.offset), r.offset, pos);
    pos = u64(buf, Number(r.timestamp), r.timestamp, pos);
    pos = small(buf, lock, pos);
    pos = small(buf, r.key, u32(buf, r.key.length, pos));
    pos = bytes(buf, values[i]!, pos);
  }
  return pos;
}

/** A byte loop: cheaper than a TypedArray set() for the few bytes of a topic, a key or the lock fields. */
function small(buf: Buffer, b: Uint8Array, pos: number): number {
  if (b.length > 32) {
    buf.set(b, pos);
    return pos + b.length;
  }
  for (let j = 0; j < b.length; j++) buf[pos + j] = b[j]!;
  return pos + b.length;
}

function bytes(buf: Buffer, b: Uint8Array, pos: number): number {
  pos = u32(buf, b.length, pos);
  buf.set(b, pos);
  return pos + b.length;
}

function u32(buf: Buffer, v: number, pos: number): number {
  buf[pos] = v >>> 24;
  buf[pos + 1] = (v >>> 16) & 0xff;
  buf[pos + 2] = (v >>> 8) & 0xff;
  buf[pos + 3] = v & 0xff;
  return pos + 4;
}

/** `n` is `Number(v)`: split as a Number where that is exact (far cheaper than writeBigUInt64BE), else the bigint path. */
function u64(buf: Buffer, n: number, v: bigint, pos: number): number {
  if (n >= 0 && n <= Number.MAX_SAFE_INTEGER) {
    u32(buf, Math.floor(n / TWO_32), pos);
    u32(buf, n >>> 0, pos + 4);
  } else buf.writeBigUInt64BE(BigInt.asUintN(64, v), pos);
  return pos + 8;
}
