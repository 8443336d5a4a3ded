/**
 * The FETCH read path's raw reader: runs of plain records (attrs 0: no codec, control, transaction or header block)
 * handed out as the verified bytes of one read, with no object per record, for an encoder that copies key and value
 * straight from them into a reply (broker/consumer/record-frames.ts).
 *
 * It makes the same checks as segment-reader.ts on the same bytes: every record's length prefix, body length,
 * key_len and header CRC on every read, and the payload CRC of whatever lies at or past `seg.verifiedEnd` (bytes on
 * disk from before this process), which moves the mark up as segment-reader does. It reads one chunk per call and
 * ends its run at the first record it does not take (any other attrs, a failed check, the chunk's end): the caller
 * then reads on from there, and anything this reader declines goes through `readRecords`, which knows what is wrong.
 */
import { u32At } from '../protocol/raw-ints.js';
import type { RawReadLimits, RawRun, ReadScratch } from './partition-log.js';
import { BASE_HEADER_BYTES, LENGTH_PREFIX_BYTES, commonRecordSize } from './record.js';
import { DEFAULT_READ_MAX_BYTES, segmentIndexFor } from './segment-reader.js';
import type { Segment } from './segment.js';

export type { RawRun } from './partition-log.js';

/** Length prefix, 13-byte header, header CRC and payload CRC: a plain record's bytes besides its key and value. */
export const PLAIN_RECORD_OVERHEAD = LENGTH_PREFIX_BYTES + BASE_HEADER_BYTES + 8;

/** Every attrs bit: a plain record has attrs 0. */
const PLAIN_ATTRS = 0xff;
const BYTES_PER_RECORD_GUESS = 512;
const MIN_READ_BYTES = 4096;

/**
 * Plain records from global offset `start` (a record start in [logStart, LEO), or a segment's end), at most
 * `maxRecords`, and within `maxBytes` of disk bytes unless the first record alone is larger; undefined when the
 * record at `start` is not one this reader takes. With `limits.scratch` the bytes are read into its free room when
 * they fit there (the run then views the scratch), else into a buffer of their own.
 */
export function readRawRun(segments: readonly Segment[], start: number, limits: RawReadLimits): RawRun | undefined {
  let segIdx = segmentIndexFor(segments, start);
  let pos = start;
  while (segIdx >= 0 && segIdx < segments.length && pos - segments[segIdx]!.base >= segments[segIdx]!.size) {
    // The end of a segment, or a gap left by recovery: go on at the next segment's first record.
    if (++segIdx < segments.length) pos = segments[segIdx]!.base;
  }
  if (segIdx < 0 || segIdx >= segments.length || limits.maxRecords <= 0) return undefined;
  const seg = segments[segIdx]!;
  const inSeg = pos - seg.base;
  const maxBytes = limits.maxBytes ?? DEFAULT_READ_MAX_BYTES;
  const mean = seg.recordBytesHint > 0 ? seg.recordBytesHint : BYTES_PER_RECORD_GUESS;
  const guess = Math.max(MIN_READ_BYTES, limits.maxRecords * (mean + (mean >>> 3)));
  let want = Math.min(seg.size - inSeg, Math.max(Math.min(maxBytes, guess), LENGTH_PREFIX_BYTES));
  let read = readInto(seg, inSeg, want, limits.scratch);
  const first = firstRecordSize(read.buf, read.at, read.got);
  if (first > read.got && first <= seg.size - inSeg) {
    // The first record alone is larger than the guess: read it (and what follows in the budget) whole.
    want = Math.min(seg.size - inSeg, Math.max(first, Math.min(maxBytes, want)));
    read = readInto(seg, inSeg, want, limits.scratch);
  }
  const { buf, at } = read;
  const verified = seg.verifiedEnd - inSeg;
  const { end, count } = scanPlain(buf, at, read.got, verified, limits.maxRecords, maxBytes);
  if (count === 0) return undefined;
  if (limits.scratch && buf === limits.scratch.buf) limits.scratch.used = at + end;
  seg.recordBytesHint = Math.ceil(end / count);
  if (verified >= 0 && end > verified) seg.verifiedEnd = inSeg + end;
  return { buf, start: at, end: at + end, count, offset: pos };
}

/** `want` bytes from segment position `inSeg`: into the scratch's free room when they fit, else a buffer of their own. */
function readInto(
  seg: Segment,
  inSeg: number,
  want: number,
  scratch: ReadScratch | undefined,
): { buf: Buffer; at: number; got: number } {
  let buf: Buffer;
  let at = 0;
  if (scratch) scratch.demand += want;
  if (scratch && scratch.buf.length - scratch.used >= want) {
    buf = scratch.buf;
    at = scratch.used;
  } else {
    buf = Buffer.allocUnsafe(want);
  }
  return { buf, at, got: seg.read(buf, at, want, inSeg) };
}

/** The size the length prefix at `buf[at]` claims (prefix included), or 0 when it cannot be read or is absurd. */
function firstRecordSize(buf: Buffer, at: number, got: number): number {
  if (got < LENGTH_PREFIX_BYTES || buf[at] !== 0 || buf[at + 1] !== 0 || buf[at + 2] !== 0 || buf[at + 3] !== 0)
    return 0;
  return LENGTH_PREFIX_BYTES + u32At(buf, at + 4);
}

/**
 * The plain records from `buf[at]` that pass every check: a record cut by `got` (bytes from `at`), one with other
 * attrs or one failing a check ends the scan, as do `maxRecords` and the disk-byte budget (at least one record when
 * the first passes). `end` is relative to `at`, as `verified` is.
 */
function scanPlain(
  buf: Buffer,
  at: number,
  got: number,
  verified: number,
  maxRecords: number,
  maxBytes: number,
): { end: number; count: number } {
  let p = at;
  let count = 0;
  const limit = at + got;
  verified += at;
  maxBytes += at;
  while (count < maxRecords) {
    // After the first record the budget bounds the record too, so one past it fails before its payload CRC is run.
    const size = commonRecordSize(buf, p, count > 0 ? Math.min(limit, maxBytes) : limit, verified, PLAIN_ATTRS);
    if (size === 0) break;
    p += size;
    count++;
  }
  return { end: p - at, count };
}
