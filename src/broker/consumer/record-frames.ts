/**
 * The record frames a consumer receives, encoded straight into one buffer sized up front (the hot path of FETCH
 * and push delivery: no intermediate objects per record).
 *
 *   RECORD (0x83)        str topic · u32 partition · u64 offset · u64 timestamp_ms · str key · str value
 *   RECORD_BATCH (0x8C)  u32 count · count × (RECORD's fields [· header block with FETCH_FLAG_HEADERS])
 *   OK (0x86)            empty
 *
 * Every frame is `u32 FrameLen · u8 op · 16-byte correl · payload`.
 */
import { headersSize } from '../../protocol/headers.js';
import { CORREL_BYTES, FRAME_HEADER_BYTES, FRAME_LENGTH_BYTES } from '../../protocol/limits.js';
import { Op } from '../../protocol/opcodes.js';
import type { RecordHeader } from '../../protocol/headers.js';
import type { PolledPartition } from './fetch-poller.js';

const FRAME_OVERHEAD = FRAME_LENGTH_BYTES + FRAME_HEADER_BYTES;
/** u32 topic len · u32 partition · u64 offset · u64 timestamp · u32 key len · u32 value len, plus the three byte runs. */
const ENTRY_FIXED = 4 + 4 + 8 + 8 + 4 + 4;

export interface RecordFrameOptions {
  batched: boolean;
  /** Header blocks after each RECORD_BATCH entry (only with `batched`). */
  headers: boolean;
  /** Append an OK frame with the same correl (pull replies). */
  withOk: boolean;
}

export function encodeRecordFrames(correl: Buffer, parts: readonly PolledPartition[], opts: RecordFrameOptions): Buffer {
  let count = 0;
  let entries = 0;
  for (const p of parts) {
    const topicLen = p.target.topicBytes.length;
    for (let i = 0; i < p.records.length; i++) {
      const rec = p.records[i]!;
      entries += ENTRY_FIXED + topicLen + rec.key.length + p.values[i]!.length;
      if (opts.batched && opts.headers) entries += headersSize(rec.headers);
    }
    count += p.records.length;
  }
  let size = opts.withOk ? FRAME_OVERHEAD : 0;
  if (count > 0) size += opts.batched ? FRAME_OVERHEAD + 4 + entries : count * FRAME_OVERHEAD + entries;
  const buf = Buffer.allocUnsafe(size);
  let pos = 0;
  if (count > 0 && opts.batched) {
    const start = pos;
    pos = frameHeader(buf, pos, Op.RECORD_BATCH, correl);
    buf.writeUInt32BE(count, pos);
    pos += 4;
    for (const p of parts) {
      for (let i = 0; i < p.records.length; i++) {
        pos = writeEntry(buf, pos, p, i);
        if (opts.headers) pos = writeHeaderBlock(buf, pos, p.records[i]!.headers);
      }
    }
    buf.writeUInt32BE(pos - start - FRAME_LENGTH_BYTES, start);
  } else if (count > 0) {
    for (const p of parts) {
      for (let i = 0; i < p.records.length; i++) {
        const start = pos;
        pos = frameHeader(buf, pos, Op.RECORD, correl);
        pos = writeEntry(buf, pos, p, i);
        buf.writeUInt32BE(pos - start - FRAME_LENGTH_BYTES, start);
      }
    }
  }
  if (opts.withOk) {
    buf.writeUInt32BE(FRAME_HEADER_BYTES, pos);
    pos = frameHeader(buf, pos, Op.OK, correl);
  }
  return buf;
}

function frameHeader(buf: Buffer, pos: number, op: number, correl: Buffer): number {
  buf[pos + FRAME_LENGTH_BYTES] = op;
  correl.copy(buf, pos + FRAME_LENGTH_BYTES + 1, 0, CORREL_BYTES);
  return pos + FRAME_OVERHEAD;
}

function writeEntry(buf: Buffer, pos: number, p: PolledPartition, i: number): number {
  const rec = p.records[i]!;
  const value = p.values[i]!;
  const topic = p.target.topicBytes;
  buf.writeUInt32BE(topic.length, pos);
  topic.copy(buf, pos + 4);
  pos += 4 + topic.length;
  buf.writeUInt32BE(p.target.partition, pos);
  writeU64(buf, rec.offset, pos + 4);
  writeU64(buf, rec.timestamp, pos + 12);
  buf.writeUInt32BE(rec.key.length, pos + 20);
  rec.key.copy(buf, pos + 24);
  pos += 24 + rec.key.length;
  buf.writeUInt32BE(value.length, pos);
  value.copy(buf, pos + 4);
  return pos + 4 + value.length;
}

const TWO_32 = 2 ** 32;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Offsets and timestamps fit 2^53 in practice; a Number split is several times cheaper than writeBigUInt64BE. */
function writeU64(buf: Buffer, v: bigint, pos: number): void {
  if (v > MAX_SAFE) {
    buf.writeBigUInt64BE(v, pos);
    return;
  }
  const n = Number(v);
  buf.writeUInt32BE(Math.floor(n / TWO_32), pos);
  buf.writeUInt32BE(n >>> 0, pos + 4);
}

function writeHeaderBlock(buf: Buffer, pos: number, headers: readonly RecordHeader[] | undefined): number {
  const list = headers ?? [];
  buf.writeUInt16BE(list.length, pos);
  pos += 2;
  for (const h of list) {
    const nameLen = buf.write(h.name, pos + 4);
    buf.writeUInt32BE(nameLen, pos);
    pos += 4 + nameLen;
    buf.writeUInt32BE(h.value.length, pos);
    h.value.copy(buf, pos + 4);
    pos += 4 + h.value.length;
  }
  return pos;
}
