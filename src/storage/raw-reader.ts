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
import { crc32Range } from '../protocol/crc32.js';
import { u32At } from '../protocol/raw-ints.js';
import type { RawRun, ReadLimits } from './partition-log.js';
import { BASE_HEADER_BYTES, LENGTH_PREFIX_BYTES, MIN_RECORD_BODY } from './record.js';
import { DEFAULT_READ_MAX_BYTES, segmentIndexFor } from './segment-reader.js';
import type { Segment } from './segment.js';

export type { RawRun } from './partition-log.js';

/** Length prefix, 13-byte header, header CRC and payload CRC: a plain record's bytes besides its key and value. */
export const PLAIN_RECORD_OVERHEAD = LENGTH_PREFIX_BYTES + BASE_HEADER_BYTES + 8;

const BYTES_PER_RECORD_GUESS = 512;
const MIN_READ_BYTES = 4096;

/**
 * Plain records from global offset `start` (a record start in [logStart, LEO), or a segment's end), at most
 * `maxRecords`, and within `maxBytes` of disk bytes unless the first record alone is larger; undefined when the
 * record at `start` is not one this reader takes.
 */
export function readRawRun(segments: readonly Segment[], start: number, limits: ReadLimits): RawRun | undefined {
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
  let buf = Buffer.allocUnsafe(want);
  let got = seg.read(buf, 0, want, inSeg);
  const first = firstRecordSize(buf, got);
  if (first > got && first <= seg.size - inSeg) {
    // The first record alone is larger than the guess: read it (and what follows in the budget) whole.
    want = Math.min(seg.size - inSeg, Math.max(first, Math.min(maxBytes, want)));
    buf = Buffer.allocUnsafe(want);
    got = seg.read(buf, 0, want, inSeg);
  }
  const verified = seg.verifiedEnd - inSeg;
  const { end, count } = scanPlain(buf, got, verified, limits.maxRecords, maxBytes);
  if (count === 0) return undefined;
  seg.recordBytesHint = Math.ceil(end / count);
  if (verified >= 0 && end > verified) seg.verifiedEnd = inSeg + end;
  return { buf, start: 0, end, count, offset: pos };
}

/** The size the length prefix at `buf[0]` claims (prefix included), or 0 when it cannot be read or is absurd. */
function firstRecordSize(buf: Buffer, got: number): number {
  if (got < LENGTH_PREFIX_BYTES || buf[0] !== 0 || buf[1] !== 0 || buf[2] !== 0 || buf[3] !== 0) return 0;
  return LENGTH_PREFIX_BYTES + u32At(buf, 4);
}

/**
 * The plain records from `buf[0]` that pass every check: a record cut by `got`, one with other attrs or one failing a
 * check ends the scan, as do `maxRecords` and the disk-byte budget (at least one record when the first passes).
 */
function scanPlain(
  buf: Buffer,
  got: number,
  verified: number,
  maxRecords: number,
  maxBytes: number,
): { end: number; count: number } {
  let p = 0;
  let count = 0;
  while (count < maxRecords && got - p >= LENGTH_PREFIX_BYTES + MIN_RECORD_BODY) {
    if (buf[p] !== 0 || buf[p + 1] !== 0 || buf[p + 2] !== 0 || buf[p + 3] !== 0) break;
    const bodyLen = u32At(buf, p + 4);
    const h = p + LENGTH_PREFIX_BYTES;
    if (bodyLen < MIN_RECORD_BODY || bodyLen > got - h || buf[h] !== 0) break;
    if (crc32Range(buf, h, h + BASE_HEADER_BYTES) !== u32At(buf, h + BASE_HEADER_BYTES)) break;
    const payloadStart = h + BASE_HEADER_BYTES + 4;
    const payloadEnd = h + bodyLen - 4;
    if (u32At(buf, h + 1) > payloadEnd - payloadStart) break;
    const size = LENGTH_PREFIX_BYTES + bodyLen;
    if (count > 0 && p + size > maxBytes) break;
    if (p + size > verified && crc32Range(buf, payloadStart, payloadEnd) !== u32At(buf, payloadEnd)) break;
    p += size;
    count++;
  }
  return { end: p, count };
}
