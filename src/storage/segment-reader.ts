/**
 * The read side of the segmented backend: bounded reads across segment boundaries and the timestamp scan.
 *
 * Each read call does one `readSync` per segment chunk into a buffer allocated for that call and sized to what the
 * call wants (the records still wanted × the segment's mean record size, plus slack), so a FETCH of 250 small
 * records reads about 40 KiB, not a fixed 128 KiB. The returned records' `key` and `value` are zero-copy views
 * into that buffer: they stay valid for as long as the caller holds them and are never overwritten by a later read
 * (a shared scratch buffer would be cheaper, but callers may keep LogRecords past the call: tests and tools do).
 *
 * Validation on read (storage.md §8): every record's length, key_len and header CRC are checked on every read, so
 * a misframed or torn record never reaches a consumer. The payload CRC (key and value, ~60 ns of a 100-byte
 * record, a tenth of a 1,000-record FETCH) is checked once per byte range per process: below `seg.verifiedEnd`
 * the bytes were either written by this process, from a buffer whose CRCs it had just computed and that the
 * page cache hands back, or already payload-verified by an earlier read here, which moves the mark up. Bytes on
 * disk from before this process (sealed segments recovery did not walk, the active one until first read) are
 * fully verified the first time they are read. What this gives up is catching media corruption of a page that was
 * evicted after it was verified or written; Kafka's broker does not re-check CRCs on fetch either.
 *
 * The common record (no transactional fields, no header block) goes through record.ts's `readCommonRecord`, with
 * the CRCs in the JS slicing-by-8 loop (cheaper than zlib's binding at these sizes); anything else, and any record
 * that fails a check, goes through `readRecord`, which verifies both CRCs and names what is wrong.
 */
import { CorruptDataError } from '../errors.js';
import type { LogRecord, ReadLimits } from './partition-log.js';
import { LENGTH_PREFIX_BYTES, readCommonRecord, readRecord } from './record.js';
import type { Segment } from './segment.js';

/** Bytes read per call when the caller sets no `maxBytes`. */
export const DEFAULT_READ_MAX_BYTES = 1024 * 1024;
/** The guess of a record's size before a segment has been read from. */
const BYTES_PER_RECORD_GUESS = 512;
const MIN_READ_BYTES = 4096;

/** The index of the segment holding global offset `pos` (the last one whose base is ≤ pos), or -1. */
export function segmentIndexFor(segments: readonly Segment[], pos: number): number {
  let lo = 0;
  let hi = segments.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (segments[mid]!.base <= pos) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

/**
 * Whole records from global offset `start` (which the caller has already clamped to [logStart, LEO)), at most
 * `maxRecords` and no more than `maxBytes` unless the first record alone is larger. A position that is not a record
 * start throws CorruptDataError when nothing was read before it; otherwise the records before it are returned.
 */
export function readRecords(segments: readonly Segment[], start: number, limits: ReadLimits): LogRecord[] {
  const maxRecords = limits.maxRecords;
  const maxBytes = limits.maxBytes ?? DEFAULT_READ_MAX_BYTES;
  const out: LogRecord[] = [];
  let bytes = 0;
  let segIdx = segmentIndexFor(segments, start);
  let pos = start;
  let offset = BigInt(start);
  let exactNext = 0;
  while (out.length < maxRecords && segIdx >= 0 && segIdx < segments.length) {
    const seg = segments[segIdx]!;
    let inSeg = pos - seg.base;
    if (inSeg >= seg.size) {
      // End of this segment, or a gap left by recovery: continue at the next segment's first record.
      segIdx++;
      if (segIdx < segments.length) {
        pos = segments[segIdx]!.base;
        offset = BigInt(pos);
      }
      continue;
    }
    const budget = maxBytes - bytes;
    if (budget <= 0 && out.length > 0) break;
    const guess = Math.max(Math.min(budget, readGuess(seg, maxRecords - out.length)), LENGTH_PREFIX_BYTES);
    const want = Math.min(seg.size - inSeg, exactNext > 0 ? exactNext : guess);
    exactNext = 0;
    const buf = Buffer.allocUnsafe(want);
    const got = seg.read(buf, 0, want, inSeg);
    const before = out.length;
    const base = seg.base + inSeg;
    const verified = seg.verifiedEnd - inSeg;
    let p = 0;
    while (p < got && out.length < maxRecords) {
      let rec: LogRecord | undefined = readCommonRecord(buf, p, got, verified, offset, base);
      if (rec === undefined) {
        const r = readRecord(buf, p, got);
        if (!r.ok) {
          const more = inSeg + got < seg.size;
          if ((r.problem === 'short-body' || r.problem === 'short-length-prefix') && more) {
            if (p === 0) {
              const claimed = got >= LENGTH_PREFIX_BYTES ? buf.readBigUInt64BE(0) + BigInt(LENGTH_PREFIX_BYTES) : 0n;
              if (claimed > BigInt(seg.size - inSeg))
                return fail(out, seg, inSeg, 'length runs past the end of the segment');
              if (out.length > 0 && bytes + Number(claimed) > maxBytes) return out;
              exactNext = claimed > 0n ? Number(claimed) : LENGTH_PREFIX_BYTES;
            }
            break;
          }
          return fail(out, seg, inSeg + p, r.detail);
        }
        const s = r.record;
        rec = {
          attrs: s.attrs,
          timestamp: s.timestamp,
          key: s.key,
          value: s.value,
          headers: s.headers,
          producerId: s.producerId,
          epoch: s.epoch,
          size: s.size,
          offset,
          nextOffset: BigInt(base + p + s.size),
        };
      }
      if (out.length > 0 && bytes + rec.size > maxBytes) return out;
      out.push(rec);
      offset = rec.nextOffset;
      bytes += rec.size;
      p += rec.size;
    }
    if (out.length > before) seg.recordBytesHint = Math.ceil(p / (out.length - before));
    // Everything in [inSeg, inSeg + p) passed every check; contiguous with the mark, it extends it.
    if (verified >= 0 && p > verified) seg.verifiedEnd = inSeg + p;
    inSeg += p;
    pos = seg.base + inSeg;
  }
  return out;
}

/** Bytes to read for `records` more records: the segment's mean record size with 1/8 slack, so one read suffices. */
function readGuess(seg: Segment, records: number): number {
  const mean = seg.recordBytesHint > 0 ? seg.recordBytesHint : BYTES_PER_RECORD_GUESS;
  return Math.max(MIN_READ_BYTES, records * (mean + (mean >>> 3)));
}

function fail(out: LogRecord[], seg: Segment, position: number, reason: string): LogRecord[] {
  if (out.length > 0) return out;
  throw new CorruptDataError(seg.logFile, position, reason);
}

/**
 * The global offset of the first record at or after segment position `from` whose timestamp is ≥ `target`, or
 * undefined when the segment has none. Reads the segment in chunks; corrupt bytes end the scan.
 */
export function scanForTimestamp(seg: Segment, from: number, target: bigint): number | undefined {
  let inSeg = from;
  let chunk = 256 * 1024;
  while (inSeg < seg.size) {
    const want = Math.min(seg.size - inSeg, chunk);
    const buf = Buffer.allocUnsafe(want);
    const got = seg.read(buf, 0, want, inSeg);
    let p = 0;
    while (p < got) {
      const r = readRecord(buf, p, got);
      if (!r.ok) break;
      if (r.record.timestamp >= target) return seg.base + inSeg + p;
      p += r.record.size;
    }
    if (p === 0) {
      if (got < want || want === seg.size - inSeg) return undefined;
      chunk *= 2;
      continue;
    }
    inSeg += p;
  }
  return undefined;
}
