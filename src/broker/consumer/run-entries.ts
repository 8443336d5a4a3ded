/**
 * RECORD_BATCH entries and RECORD frames (record-frames.ts) for a run of plain records still in their on-disk bytes
 * (storage/raw-reader.ts): one pass over the run, with key and value copied straight from the read buffer and no
 * object per record. The bytes are exactly what the record path writes for the same records.
 *
 *   on disk  u64 len · u8 attrs (0) · u32 key_len · u64 timestamp_ms · u32 header_crc · key · value · u32 payload_crc
 *   entry    str topic · u32 partition · u64 offset · u64 timestamp_ms · u32 key_len · key · u32 value_len · value
 */
import { CORREL_BYTES, FRAME_HEADER_BYTES, FRAME_LENGTH_BYTES } from '../../protocol/limits.js';
import { Op } from '../../protocol/opcodes.js';
import { u32At } from '../../protocol/raw-ints.js';
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

/** The run as RECORD_BATCH entries at `buf[pos]`, each followed by an empty header block with `headerBlocks`. */
export function writeRunEntries(buf: Buffer, pos: number, prefix: Buffer, run: RawRun, headerBlocks: number): number {
  const src = run.buf;
  let p = run.start;
  let offset = run.offset;
  while (p < run.end) {
    const size = LENGTH_PREFIX_BYTES + u32At(src, p + 4);
    pos = writePlainEntry(buf, pos, prefix, src, p, size, offset);
    if (headerBlocks !== 0) {
      buf[pos] = 0;
      buf[pos + 1] = 0;
      pos += 2;
    }
    p += size;
    offset += size;
  }
  return pos;
}

/** The run as one RECORD frame per record, with `correl`. */
export function writeRunFrames(buf: Buffer, pos: number, prefix: Buffer, run: RawRun, correl: Buffer): number {
  const src = run.buf;
  let p = run.start;
  let offset = run.offset;
  while (p < run.end) {
    const size = LENGTH_PREFIX_BYTES + u32At(src, p + 4);
    const start = pos;
    buf[pos + FRAME_LENGTH_BYTES] = Op.RECORD;
    correl.copy(buf, pos + FRAME_LENGTH_BYTES + 1, 0, CORREL_BYTES);
    pos = writePlainEntry(buf, pos + FRAME_OVERHEAD, prefix, src, p, size, offset);
    putU32(buf, start, pos - start - FRAME_LENGTH_BYTES);
    p += size;
    offset += size;
  }
  return pos;
}

/*
 * The record at `src[p]` (of `size` bytes on disk, at `offset` below 2^53) as one entry at `buf[pos]`. Timestamp and
 * key_len are copied as they are (both big-endian on disk and on the wire, in the other order); key and value go in
 * one copy, to 4 bytes past the key's place so that the value lands behind its length field, and the key (short, as
 * a rule) then moves back over those 4 bytes.
 */
function writePlainEntry(
  buf: Buffer,
  pos: number,
  prefix: Buffer,
  src: Buffer,
  p: number,
  size: number,
  offset: number,
): number {
  buf.set(prefix, pos);
  pos += prefix.length;
  putU32(buf, pos, Math.floor(offset / TWO_32));
  putU32(buf, pos + 4, offset >>> 0);
  const h = p + LENGTH_PREFIX_BYTES;
  for (let i = 0; i < 8; i++) buf[pos + 8 + i] = src[h + 5 + i]!;
  for (let i = 0; i < 4; i++) buf[pos + 16 + i] = src[h + 1 + i]!;
  const keyLen = u32At(src, h + 1);
  const payloadLen = size - PLAIN_RECORD_OVERHEAD;
  const keyAt = pos + 20;
  buf.set(new Uint8Array(src.buffer, src.byteOffset + p + KEY_AT, payloadLen), keyAt + 4);
  if (keyLen <= 32) for (let i = 0; i < keyLen; i++) buf[keyAt + i] = buf[keyAt + 4 + i]!;
  else buf.copyWithin(keyAt, keyAt + 4, keyAt + 4 + keyLen);
  putU32(buf, keyAt + keyLen, payloadLen - keyLen);
  return keyAt + 4 + payloadLen;
}

function putU32(buf: Buffer, pos: number, v: number): void {
  buf[pos] = v >>> 24;
  buf[pos + 1] = v >>> 16;
  buf[pos + 2] = v >>> 8;
  buf[pos + 3] = v;
}
