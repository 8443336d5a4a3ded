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
import type { LogRecord } from '../../storage/partition-log.js';
import type { PolledPartition } from './fetch-poller.js';
import { runEntriesSize, writeRunEntries, writeRunFrames } from './run-entries.js';

const FRAME_OVERHEAD = FRAME_LENGTH_BYTES + FRAME_HEADER_BYTES;
/** u32 topic len · u32 partition · u64 offset · u64 timestamp · u32 key len · u32 value len, plus the three byte runs. */
const ENTRY_FIXED = 4 + 4 + 8 + 8 + 4 + 4;

export interface RecordFrameOptions {
  batched: boolean;
  /** Header blocks after each RECORD_BATCH entry (only with `batched`). */
  headers: boolean;
  /** Append an OK frame with the same correl (pull replies). */
  withOk: boolean;
  /** Where the reply's buffer comes from (default Buffer.allocUnsafe): a ReplyPool's `take`. */
  alloc?: ((size: number) => Buffer) | undefined;
}

export function encodeRecordFrames(
  correl: Buffer,
  parts: readonly PolledPartition[],
  opts: RecordFrameOptions,
): Buffer {
  let count = 0;
  let entries = 0;
  for (const p of parts) {
    const topicLen = p.target.topicBytes.length;
    for (const run of p.runs ?? []) {
      entries += runEntriesSize(run, topicLen, opts.batched && opts.headers);
      count += run.count;
    }
    for (let i = 0; i < p.records.length; i++) {
      const rec = p.records[i]!;
      entries += ENTRY_FIXED + topicLen + rec.key.length + p.values[i]!.length;
      if (opts.batched && opts.headers) entries += headersSize(rec.headers);
    }
    count += p.records.length;
  }
  let size = opts.withOk ? FRAME_OVERHEAD : 0;
  if (count > 0) size += opts.batched ? FRAME_OVERHEAD + 4 + entries : count * FRAME_OVERHEAD + entries;
  const buf = opts.alloc ? opts.alloc(size) : Buffer.allocUnsafe(size);
  let pos = 0;
  if (count > 0 && opts.batched) {
    const start = pos;
    pos = frameHeader(buf, pos, Op.RECORD_BATCH, correl);
    buf.writeUInt32BE(count, pos);
    pos += 4;
    for (const p of parts) {
      const prefix = entryPrefix(p);
      for (const run of p.runs ?? []) pos = writeRunEntries(buf, pos, prefix, run, opts.headers ? 1 : 0);
      const records = p.records;
      const values = p.values;
      for (let i = 0; i < records.length; i++) {
        pos = writeEntry(buf, pos, prefix, records[i]!, values[i]!);
        if (opts.headers) pos = writeHeaderBlock(buf, pos, records[i]!.headers);
      }
    }
    buf.writeUInt32BE(pos - start - FRAME_LENGTH_BYTES, start);
  } else if (count > 0) {
    for (const p of parts) {
      const prefix = entryPrefix(p);
      for (const run of p.runs ?? []) pos = writeRunFrames(buf, pos, prefix, run, correl);
      for (let i = 0; i < p.records.length; i++) {
        const start = pos;
        pos = frameHeader(buf, pos, Op.RECORD, correl);
        pos = writeEntry(buf, pos, prefix, p.records[i]!, p.values[i]!);
        buf.writeUInt32BE(pos - start - FRAME_LENGTH_BYTES, start);
      }
    }
  }
  if (opts.withOk) {
    buf.writeUInt32BE(FRAME_HEADER_BYTES, pos);
    frameHeader(buf, pos, Op.OK, correl);
  }
  return buf;
}

function frameHeader(buf: Buffer, pos: number, op: number, correl: Buffer): number {
  buf[pos + FRAME_LENGTH_BYTES] = op;
  correl.copy(buf, pos + FRAME_LENGTH_BYTES + 1, 0, CORREL_BYTES);
  return pos + FRAME_OVERHEAD;
}

/** str topic · u32 partition: the bytes every entry of a partition starts with, built once per partition. */
function entryPrefix(p: PolledPartition): Buffer {
  const topic = p.target.topicBytes;
  const prefix = Buffer.allocUnsafe(8 + topic.length);
  prefix.writeUInt32BE(topic.length, 0);
  prefix.set(topic, 4);
  prefix.writeUInt32BE(p.target.partition, 4 + topic.length);
  return prefix;
}

/* TypedArray#set rather than Buffer#copy, and byte stores rather than writeUInt32BE: both skip argument checks that
   cost more than the work for 8-byte keys and 100-byte values. Lengths here are < 2^32 (they came off the disk). */
function writeEntry(buf: Buffer, pos: number, prefix: Buffer, rec: LogRecord, value: Buffer): number {
  buf.set(prefix, pos);
  pos += prefix.length;
  writeU64(buf, rec.offset, pos);
  writeU64(buf, rec.timestamp, pos + 8);
  const key = rec.key;
  putU32(buf, pos + 16, key.length);
  buf.set(key, pos + 20);
  pos += 20 + key.length;
  putU32(buf, pos, value.length);
  buf.set(value, pos + 4);
  return pos + 4 + value.length;
}

function putU32(buf: Buffer, pos: number, v: number): void {
  buf[pos] = v >>> 24;
  buf[pos + 1] = v >>> 16;
  buf[pos + 2] = v >>> 8;
  buf[pos + 3] = v;
}

const TWO_32 = 2 ** 32;

/**
 * Offsets and timestamps fit 2^53 in practice; a Number split is several times cheaper than writeBigUInt64BE. The
 * range test is on the Number (a bigint past 2^53 converts to at least 2^53), so only those take the bigint path;
 * a negative value still throws RangeError there.
 */
function writeU64(buf: Buffer, v: bigint, pos: number): void {
  const n = Number(v);
  if (!(n >= 0 && n <= Number.MAX_SAFE_INTEGER)) {
    buf.writeBigUInt64BE(v, pos);
    return;
  }
  putU32(buf, pos, Math.floor(n / TWO_32));
  putU32(buf, pos + 4, n >>> 0);
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
