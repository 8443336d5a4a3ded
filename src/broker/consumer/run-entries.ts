/**
 * RECORD_BATCH entries and RECORD frames (record-frames.ts) for a run of plain records still in their on-disk bytes
 * (storage/raw-reader.ts): the run is copied into the reply once and rewritten there in place, record by record,
 * with no object per record. The bytes are exactly what the record path writes for the same records.
 *
 *   on disk  u64 len · u8 attrs (0) · u32 key_len · u64 timestamp_ms · u32 header_crc · key · value · u32 payload_crc
 *   entry    str topic · u32 partition · u64 offset · u64 timestamp_ms · u32 key_len · key · u32 value_len · value
 */
import { dataViewOf } from '../../protocol/crc32.js';
import { CORREL_BYTES, FRAME_HEADER_BYTES, FRAME_LENGTH_BYTES } from '../../protocol/limits.js';
import { Op } from '../../protocol/opcodes.js';
import { PLAIN_RECORD_OVERHEAD, type RawRun } from '../../storage/raw-reader.js';
import { BASE_HEADER_BYTES, LENGTH_PREFIX_BYTES } from '../../storage/record.js';

const FRAME_OVERHEAD = FRAME_LENGTH_BYTES + FRAME_HEADER_BYTES;
/** An entry's fixed fields: topic length, partition, offset, timestamp, key and value lengths. */
const ENTRY_FIXED = 4 + 4 + 8 + 8 + 4 + 4;
/** Where a plain record's key starts, from its length prefix. */
const KEY_AT = LENGTH_PREFIX_BYTES + BASE_HEADER_BYTES + 4;
const TWO_32 = 2 ** 32;

/** Entry bytes of the run's records (no frame headers): a record's on-disk size less its framing, plus the entry's. */
export function runEntriesSize(run: RawRun, topicLen: number, headerBlocks: boolean): number {
  const perRecord = ENTRY_FIXED + topicLen - PLAIN_RECORD_OVERHEAD + (headerBlocks ? 2 : 0);
  return run.end - run.start + run.count * perRecord;
}

/**
 * The run as RECORD_BATCH entries at `buf[pos]`, each followed by an empty header block with `headerBlocks`.
 * `buf[pos, pos + runEntriesSize(...))` must be free: the run's bytes are copied to its end first (placeRun).
 */
export function writeRunEntries(buf: Buffer, pos: number, prefix: Buffer, run: RawRun, headerBlocks: number): number {
  const hb = headerBlocks !== 0 ? 2 : 0;
  let p = placeRun(buf, pos, run, prefix.length - 8 + 3 + hb);
  const end = p + (run.end - run.start);
  const dv = dataViewOf(buf);
  const pv = dataViewOf(prefix);
  let offset = run.offset;
  while (p < end) {
    const size = LENGTH_PREFIX_BYTES + dv.getUint32(p + 4);
    pos = movePlainEntry(buf, dv, pos, pv, p, size, offset);
    if (hb !== 0) {
      dv.setUint16(pos, 0);
      pos += 2;
    }
    p += size;
    offset += size;
  }
  return pos;
}

/** The run as one RECORD frame per record, with `correl`; the same room as writeRunEntries needs. */
export function writeRunFrames(buf: Buffer, pos: number, prefix: Buffer, run: RawRun, correl: Buffer): number {
  let p = placeRun(buf, pos, run, FRAME_OVERHEAD + prefix.length - 8 + 3);
  const end = p + (run.end - run.start);
  const dv = dataViewOf(buf);
  const pv = dataViewOf(prefix);
  const cv = dataViewOf(correl);
  let offset = run.offset;
  while (p < end) {
    const size = LENGTH_PREFIX_BYTES + dv.getUint32(p + 4);
    // FrameLen: op, correl and the entry (ENTRY_FIXED with the topic, key and value).
    dv.setUint32(pos, FRAME_HEADER_BYTES + ENTRY_FIXED + prefix.length - 8 + size - PLAIN_RECORD_OVERHEAD);
    buf[pos + FRAME_LENGTH_BYTES] = Op.RECORD;
    copyWords(dv, pos + FRAME_LENGTH_BYTES + 1, cv, 0, CORREL_BYTES);
    pos = movePlainEntry(buf, dv, pos + FRAME_OVERHEAD, pv, p, size, offset);
    p += size;
    offset += size;
  }
  return pos;
}

/**
 * Copies the run's bytes to the end of the room its output takes at `buf[pos]` (`grow` more bytes per record than
 * on disk), where the records are then rewritten in place front to back, and returns where they start. Entry `i`
 * starts `(count - i) * grow` bytes before record `i`, so writing it never reaches a byte of a later record, and
 * movePlainEntry reads what it overwrites of its own record first: one copy of the run instead of one per record,
 * and the per-record moves stay inside one ArrayBuffer (copyWithin, several times cheaper than a view and a set).
 */
function placeRun(buf: Buffer, pos: number, run: RawRun, grow: number): number {
  const at = pos + run.count * grow;
  buf.set(new Uint8Array(run.buf.buffer, run.buf.byteOffset + run.start, run.end - run.start), at);
  return at;
}

/*
 * The record at `buf[p]` (of `size` bytes on disk, at `offset` below 2^53) as one entry at `buf[pos]`, `pos` at
 * least the entry's growth below `p` (placeRun). Timestamp and key_len are read before the entry's fixed fields
 * overwrite them (both big-endian on disk and on the wire, in the other order); the key then moves down (never
 * past where it was), the value after it (copyWithin: a memmove, so a value that moves up by its length field's 4
 * bytes, over the spent payload CRC, is fine), and its length goes last. Fixed fields, prefix and a short key go
 * as DataView words (inlined stores; a TypedArray#set per record for the prefix cost more than the rest of the
 * header, microbenched at 100-byte values: 170 -> ~110 ns per record for the whole run).
 */
function movePlainEntry(
  buf: Buffer,
  dv: DataView,
  pos: number,
  prefix: DataView,
  p: number,
  size: number,
  offset: number,
): number {
  const h = p + LENGTH_PREFIX_BYTES;
  const keyLen = dv.getUint32(h + 1);
  const tsHigh = dv.getUint32(h + 5);
  const tsLow = dv.getUint32(h + 9);
  copyWords(dv, pos, prefix, 0, prefix.byteLength);
  pos += prefix.byteLength;
  dv.setUint32(pos, Math.floor(offset / TWO_32));
  dv.setUint32(pos + 4, offset >>> 0);
  dv.setUint32(pos + 8, tsHigh);
  dv.setUint32(pos + 12, tsLow);
  dv.setUint32(pos + 16, keyLen);
  const keyAt = pos + 20;
  const src = p + KEY_AT;
  if (keyLen <= 32) copyWords(dv, keyAt, dv, src, keyLen);
  else buf.copyWithin(keyAt, src, src + keyLen);
  const valueLen = size - PLAIN_RECORD_OVERHEAD - keyLen;
  const valueAt = keyAt + keyLen + 4;
  buf.copyWithin(valueAt, src + keyLen, src + keyLen + valueLen);
  dv.setUint32(valueAt - 4, valueLen);
  return valueAt + valueLen;
}

/**
 * `n` bytes of `from` at `fromAt` to `to` at `at`, front to back four at a time (the prefix, the correl, a key of a
 * few words). Within one view the key moves down (at <= fromAt), so front to back never reads a byte it overwrote.
 */
function copyWords(to: DataView, at: number, from: DataView, fromAt: number, n: number): void {
  let i = 0;
  for (; i + 4 <= n; i += 4) to.setUint32(at + i, from.getUint32(fromAt + i));
  for (; i < n; i++) to.setUint8(at + i, from.getUint8(fromAt + i));
}
