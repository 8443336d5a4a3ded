/**
 * The on-disk record, v2 (storage.md §8), shared by both backends:
 *
 *   u64 len                 everything after this field
 *   u8  attrs               bits 0-1 codec · 0x04 control · 0x08 transactional · 0x10 headers (extensions.md §3)
 *   u32 key_len             plaintext key length
 *   u64 timestamp_ms
 *   [u64 pid · u16 epoch]   only with 0x08: the header grows from 13 to 23 bytes
 *   u32 header_crc          CRC-32 over the 13- or 23-byte header (attrs included, len not)
 *   key · [header block when 0x10] · stored value
 *   u32 payload_crc         CRC-32 over everything between the two CRCs
 */
import { DecodeError } from '../errors.js';
import { byteView } from '../protocol/byte-view.js';
import { crc32Range } from '../protocol/crc32.js';
import { type RecordHeader, headersSize, readHeaders, writeHeaders } from '../protocol/headers.js';
import { u32At, u64At } from '../protocol/raw-ints.js';
import { Reader } from '../protocol/reader.js';
import { Writer } from '../protocol/writer.js';

export const RecordAttr = {
  CODEC_MASK: 0x03,
  CONTROL: 0x04,
  TRANSACTIONAL: 0x08,
  HEADERS: 0x10,
  RESERVED_MASK: 0xe0,
} as const;

export const LENGTH_PREFIX_BYTES = 8;
export const BASE_HEADER_BYTES = 13;
export const TXN_HEADER_BYTES = 23;
/** The smallest body: 13-byte header, two CRCs, empty key and value. */
export const MIN_RECORD_BODY = BASE_HEADER_BYTES + 8;
/** Attribute bits readCommonRecord leaves to readRecord: a 23-byte header or a header block. */
const COMMON_RECORD_EXCLUDES = RecordAttr.TRANSACTIONAL | RecordAttr.HEADERS;

export interface RecordToStore {
  /** Codec bits and flags; HEADERS and TRANSACTIONAL are set from `headers` and `producerId` when present. */
  attrs: number;
  timestamp: bigint;
  key: Uint8Array;
  /** The value as stored: already compressed when the codec bits are non-zero. */
  value: Uint8Array;
  headers?: readonly RecordHeader[] | undefined;
  /** With `epoch`, makes the record transactional (attrs 0x08). */
  producerId?: bigint | undefined;
  epoch?: number | undefined;
}

export interface StoredRecord {
  attrs: number;
  timestamp: bigint;
  key: Buffer;
  /** As stored (compressed when `attrs & CODEC_MASK`). */
  value: Buffer;
  headers: RecordHeader[] | undefined;
  producerId: bigint | undefined;
  epoch: number | undefined;
  /** Bytes on disk including the 8-byte length prefix. */
  size: number;
}

function effectiveAttrs(r: RecordToStore): number {
  let attrs = r.attrs & ~(RecordAttr.HEADERS | RecordAttr.TRANSACTIONAL);
  if (r.headers && r.headers.length > 0) attrs |= RecordAttr.HEADERS;
  if (r.producerId !== undefined) attrs |= RecordAttr.TRANSACTIONAL;
  return attrs;
}

/** Bytes the record occupies on disk, length prefix included. */
export function recordSize(r: RecordToStore): number {
  const header = r.producerId !== undefined ? TXN_HEADER_BYTES : BASE_HEADER_BYTES;
  const hdrs = r.headers && r.headers.length > 0 ? headersSize(r.headers) : 0;
  return LENGTH_PREFIX_BYTES + header + 4 + r.key.length + hdrs + r.value.length + 4;
}

/** Writes the record at `pos` of `buf` (which must have room for `recordSize(r)`); returns the bytes written. */
export function writeRecord(buf: Buffer, pos: number, r: RecordToStore): number {
  const attrs = effectiveAttrs(r);
  const txn = (attrs & RecordAttr.TRANSACTIONAL) !== 0;
  const headerLen = txn ? TXN_HEADER_BYTES : BASE_HEADER_BYTES;
  const size = recordSize(r);
  writeU64(buf, pos, size - LENGTH_PREFIX_BYTES);
  const h = pos + LENGTH_PREFIX_BYTES;
  buf[h] = attrs;
  putU32(buf, h + 1, r.key.length);
  writeBigU64(buf, h + 5, r.timestamp);
  if (txn) {
    buf.writeBigUInt64BE(r.producerId!, h + 13);
    buf.writeUInt16BE(r.epoch ?? 0, h + 21);
  }
  putU32(buf, h + headerLen, txn ? crc32Range(buf, h, h + headerLen) : baseHeaderCrc(buf, h, attrs, r));
  const payloadStart = h + headerLen + 4;
  let p = payloadStart;
  buf.set(r.key, p);
  p += r.key.length;
  if (attrs & RecordAttr.HEADERS) {
    const w = new Writer(headersSize(r.headers));
    writeHeaders(w, r.headers);
    const block = w.finish();
    buf.set(block, p);
    p += block.length;
  }
  buf.set(r.value, p);
  p += r.value.length;
  putU32(buf, p, crc32Range(buf, payloadStart, p));
  return size;
}

/*
 * The 13-byte header CRC depends on attrs, key length and timestamp only, and the records of one produce share all
 * three (one broker timestamp per produce, keys of one length): the last one is remembered, which saves a CRC per
 * record of such a batch.
 */
let lastAttrs = -1;
let lastKeyLen = -1;
let lastTimestamp = -1n;
let lastHeaderCrc = 0;

function baseHeaderCrc(buf: Buffer, h: number, attrs: number, r: RecordToStore): number {
  if (attrs !== lastAttrs || r.key.length !== lastKeyLen || r.timestamp !== lastTimestamp) {
    lastHeaderCrc = crc32Range(buf, h, h + BASE_HEADER_BYTES);
    lastAttrs = attrs;
    lastKeyLen = r.key.length;
    lastTimestamp = r.timestamp;
  }
  return lastHeaderCrc;
}

/*
 * u64 writes as two u32 halves: Buffer#writeBigUInt64BE costs about 100 ns a call, a third of encoding a small
 * record. Out-of-range values still throw RangeError (a negative timestamp gives a negative high half).
 */
function writeU64(buf: Buffer, pos: number, v: number): void {
  putU32(buf, pos, Math.floor(v / 0x1_0000_0000));
  putU32(buf, pos + 4, v >>> 0);
}

/** An unchecked big-endian u32 store: callers pass values already known to fit (sizes, CRCs, checked halves). */
function putU32(buf: Buffer, pos: number, v: number): void {
  buf[pos] = v >>> 24;
  buf[pos + 1] = v >>> 16;
  buf[pos + 2] = v >>> 8;
  buf[pos + 3] = v;
}

function writeBigU64(buf: Buffer, pos: number, v: bigint): void {
  const n = Number(v);
  if (n >= 0 && Number.isSafeInteger(n)) {
    writeU64(buf, pos, n);
  } else {
    buf.writeUInt32BE(Number(v >> 32n), pos);
    buf.writeUInt32BE(Number(v & 0xffff_ffffn), pos + 4);
  }
}

export function encodeRecord(r: RecordToStore): Buffer {
  const buf = Buffer.allocUnsafe(recordSize(r));
  writeRecord(buf, 0, r);
  return buf;
}

/** Why the bytes at a position are not a whole, valid record. */
export type RecordProblem =
  | 'short-length-prefix'
  | 'impossible-length'
  | 'short-body'
  | 'header-crc'
  | 'payload-crc'
  | 'key-length'
  | 'bad-headers';

export type ReadResult = { ok: true; record: StoredRecord } | { ok: false; problem: RecordProblem; detail: string };

/**
 * Reads and verifies the record at `pos`, looking no further than `end`. Never throws on bad bytes and never
 * allocates from a claimed length: a length prefix past `end` is reported as impossible.
 */
export function readRecord(buf: Buffer, pos: number, end: number = buf.length): ReadResult {
  const framed = checkFraming(buf, pos, end);
  if (!framed.ok) return framed;
  const { bodyLen } = framed;
  const h = pos + LENGTH_PREFIX_BYTES;
  const attrs = buf[h]!;
  const txn = (attrs & RecordAttr.TRANSACTIONAL) !== 0;
  const headerLen = txn ? TXN_HEADER_BYTES : BASE_HEADER_BYTES;
  if (bodyLen < headerLen + 8) {
    return {
      ok: false,
      problem: 'impossible-length',
      detail: `length ${bodyLen} cannot hold a ${headerLen}-byte header`,
    };
  }
  const headerCrc = buf.readUInt32BE(h + headerLen);
  if (crc32Range(buf, h, h + headerLen) !== headerCrc) {
    return { ok: false, problem: 'header-crc', detail: 'header CRC mismatch' };
  }
  const keyLen = buf.readUInt32BE(h + 1);
  const payloadStart = h + headerLen + 4;
  const payloadEnd = h + bodyLen - 4;
  if (keyLen > payloadEnd - payloadStart) {
    return {
      ok: false,
      problem: 'key-length',
      detail: `key_len ${keyLen} exceeds the ${payloadEnd - payloadStart}-byte payload`,
    };
  }
  if (crc32Range(buf, payloadStart, payloadEnd) !== buf.readUInt32BE(payloadEnd)) {
    return { ok: false, problem: 'payload-crc', detail: 'payload CRC mismatch' };
  }
  return readVerified(buf, h, bodyLen, headerLen, keyLen);
}

type FramingResult = { ok: true; bodyLen: number } | { ok: false; problem: RecordProblem; detail: string };

/** The length prefix at `pos`: present, at least the minimum body, and within `end`. */
function checkFraming(buf: Buffer, pos: number, end: number): FramingResult {
  if (end - pos < LENGTH_PREFIX_BYTES) {
    return { ok: false, problem: 'short-length-prefix', detail: `${end - pos} bytes where an 8-byte length belongs` };
  }
  // The length is compared as two u32 halves so the common case builds no bigint; only messages print it whole.
  const lenHi = buf.readUInt32BE(pos);
  const lenLo = buf.readUInt32BE(pos + 4);
  const left = end - pos - LENGTH_PREFIX_BYTES;
  if (lenHi === 0 && lenLo < MIN_RECORD_BODY) {
    return {
      ok: false,
      problem: 'impossible-length',
      detail: `length ${lenLo} is below the minimum of ${MIN_RECORD_BODY}`,
    };
  }
  if (lenHi !== 0 || lenLo > left) {
    const len = buf.readBigUInt64BE(pos);
    return { ok: false, problem: 'short-body', detail: `length ${len} runs past the end (${left} bytes left)` };
  }
  return { ok: true, bodyLen: lenLo };
}

/** The fields of a record whose framing and CRCs passed (`h` is where its header starts); the header block too. */
function readVerified(buf: Buffer, h: number, bodyLen: number, headerLen: number, keyLen: number): ReadResult {
  const attrs = buf[h]!;
  const txn = headerLen === TXN_HEADER_BYTES;
  const payloadStart = h + headerLen + 4;
  const payloadEnd = h + bodyLen - 4;
  const key = buf.subarray(payloadStart, payloadStart + keyLen);
  let valueStart = payloadStart + keyLen;
  let headers: RecordHeader[] | undefined;
  if (attrs & RecordAttr.HEADERS) {
    const r = new Reader(buf, valueStart, payloadEnd);
    try {
      headers = readHeaders(r);
    } catch (err) {
      return { ok: false, problem: 'bad-headers', detail: err instanceof DecodeError ? err.message : String(err) };
    }
    valueStart += r.offset;
  }
  return {
    ok: true,
    record: {
      attrs,
      timestamp: buf.readBigUInt64BE(h + 5),
      key,
      value: buf.subarray(valueStart, payloadEnd),
      headers,
      producerId: txn ? buf.readBigUInt64BE(h + 13) : undefined,
      epoch: txn ? buf.readUInt16BE(h + 21) : undefined,
      size: LENGTH_PREFIX_BYTES + bodyLen,
    },
  };
}

/**
 * The one check of the raw hot paths (readCommonRecord, raw-reader's scanPlain): the size on disk of the record at
 * `p` when it has a 13-byte header, no attrs bit of `excluded`, and passes every check of storage.md §8 within
 * `buf[0, end)` (length prefix, body length, header CRC, key_len, and the payload CRC unless the record lies within
 * `buf[0, verified)`); else 0, and the caller goes to `readRecord`, which decides and explains.
 */
export function commonRecordSize(buf: Buffer, p: number, end: number, verified: number, excluded: number): number {
  if (end - p < LENGTH_PREFIX_BYTES + MIN_RECORD_BODY) return 0;
  if (buf[p] !== 0 || buf[p + 1] !== 0 || buf[p + 2] !== 0 || buf[p + 3] !== 0) return 0;
  const bodyLen = u32At(buf, p + 4);
  const h = p + LENGTH_PREFIX_BYTES;
  if (bodyLen < MIN_RECORD_BODY || bodyLen > end - h || (buf[h]! & excluded) !== 0) return 0;
  if (crc32Range(buf, h, h + BASE_HEADER_BYTES) !== u32At(buf, h + BASE_HEADER_BYTES)) return 0;
  const payloadStart = h + BASE_HEADER_BYTES + 4;
  const payloadEnd = h + bodyLen - 4;
  if (u32At(buf, h + 1) > payloadEnd - payloadStart) return 0;
  const size = LENGTH_PREFIX_BYTES + bodyLen;
  if (p + size > verified && crc32Range(buf, payloadStart, payloadEnd) !== u32At(buf, payloadEnd)) return 0;
  return size;
}

/**
 * readRecord's fast path, for the segment reader's hot loop: the record at `p` when it is a common one (13-byte
 * header, no header block) that passes commonRecordSize within `buf[0, end)`, read on raw indices with zero-copy
 * views; undefined sends the caller to `readRecord`. `buf[0, verified)` is already known whole (its payload CRC is
 * skipped). The record is returned with `offset`, and `nextOffset` = `base + p + size` (`base` being the global
 * offset of `buf[0]`), so the caller builds no second object.
 */
export function readCommonRecord(
  buf: Buffer,
  p: number,
  end: number,
  verified: number,
  offset: bigint,
  base: number,
): (StoredRecord & { offset: bigint; nextOffset: bigint }) | undefined {
  const size = commonRecordSize(buf, p, end, verified, COMMON_RECORD_EXCLUDES);
  if (size === 0) return undefined;
  const h = p + LENGTH_PREFIX_BYTES;
  const keyEnd = h + BASE_HEADER_BYTES + 4 + u32At(buf, h + 1);
  return {
    attrs: buf[h]!,
    timestamp: u64At(buf, h + 5),
    key: byteView(buf, h + BASE_HEADER_BYTES + 4, keyEnd),
    value: byteView(buf, keyEnd, p + size - 4),
    headers: undefined,
    producerId: undefined,
    epoch: undefined,
    size,
    offset,
    nextOffset: BigInt(base + p + size),
  };
}

/** The control marker value (semantics.md §10): u8 marker (0 ABORT, 1 COMMIT) · u64 pid · u16 epoch. */
export const ControlMarker = { ABORT: 0, COMMIT: 1 } as const;

export function encodeControlValue(marker: number, producerId: bigint, epoch: number): Buffer {
  const b = Buffer.allocUnsafe(11);
  b[0] = marker;
  b.writeBigUInt64BE(producerId, 1);
  b.writeUInt16BE(epoch, 9);
  return b;
}

/** Undefined when the value is shorter than 11 bytes; bytes after them are ignored. */
export function decodeControlValue(value: Buffer): { marker: number; producerId: bigint; epoch: number } | undefined {
  if (value.length < 11) return undefined;
  const r = new Reader(value);
  return { marker: r.u8('marker'), producerId: r.u64('pid'), epoch: r.u16('epoch') };
}
