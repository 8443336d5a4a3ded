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
  const st: ReadState = {
    out: [],
    maxRecords: limits.maxRecords,
    maxBytes: limits.maxBytes ?? DEFAULT_READ_MAX_BYTES,
    bytes: 0,
    offset: BigInt(start),
    exactNext: 0,
    done: false,
  };
  let segIdx = segmentIndexFor(segments, start);
  let pos = start;
  while (!st.done && st.out.length < st.maxRecords && segIdx >= 0 && segIdx < segments.length) {
    const seg = segments[segIdx]!;
    const inSeg = pos - seg.base;
    if (inSeg >= seg.size) {
      // End of this segment, or a gap left by recovery: continue at the next segment's first record.
      segIdx++;
      if (segIdx < segments.length) {
        pos = segments[segIdx]!.base;
        st.offset = BigInt(pos);
      }
      continue;
    }
    if (st.maxBytes - st.bytes <= 0 && st.out.length > 0) break;
    pos = seg.base + inSeg + readChunk(seg, inSeg, st);
  }
  return st.out;
}

/** One read call's progress across chunks. `done` ends the call with what `out` holds. */
interface ReadState {
  out: LogRecord[];
  maxRecords: number;
  maxBytes: number;
  bytes: number;
  /** The global offset of the next record. */
  offset: bigint;
  /** The exact size of the record the next chunk must hold whole (0: size it by the guess). */
  exactNext: number;
  done: boolean;
}

/**
 * One `readSync` at segment position `inSeg` and the whole records in it, onto `st.out`; returns the bytes consumed.
 * A record cut by the chunk's end is read whole by the next chunk. Throws CorruptDataError for bad bytes at the
 * start of the call; after records were collected it ends the call instead.
 */
function readChunk(seg: Segment, inSeg: number, st: ReadState): number {
  const budget = st.maxBytes - st.bytes;
  const guess = Math.max(Math.min(budget, readGuess(seg, st.maxRecords - st.out.length)), LENGTH_PREFIX_BYTES);
  const want = Math.min(seg.size - inSeg, st.exactNext > 0 ? st.exactNext : guess);
  st.exactNext = 0;
  const buf = Buffer.allocUnsafe(want);
  const got = seg.read(buf, 0, want, inSeg);
  const before = st.out.length;
  const base = seg.base + inSeg;
  const verified = seg.verifiedEnd - inSeg;
  let p = 0;
  while (p < got && st.out.length < st.maxRecords) {
    const rec = readCommonRecord(buf, p, got, verified, st.offset, base) ?? slowRecord(seg, buf, p, got, inSeg, st);
    if (rec === undefined) break;
    if (st.out.length > 0 && st.bytes + rec.size > st.maxBytes) {
      st.done = true;
      break;
    }
    st.out.push(rec);
    st.offset = rec.nextOffset;
    st.bytes += rec.size;
    p += rec.size;
  }
  if (st.out.length > before) seg.recordBytesHint = Math.ceil(p / (st.out.length - before));
  // Everything in [inSeg, inSeg + p) passed every check; contiguous with the mark, it extends it.
  if (verified >= 0 && p > verified) seg.verifiedEnd = inSeg + p;
  if (p === 0 && st.exactNext === 0) st.done = true;
  return p;
}

/**
 * The record at `buf[p]` through `readRecord` (any record the fast path declined). Undefined ends the chunk: for a
 * record cut by the chunk's end (with `st.exactNext` set when it starts the chunk), or for bad bytes after records
 * were collected (with `st.done`).
 */
function slowRecord(
  seg: Segment,
  buf: Buffer,
  p: number,
  got: number,
  inSeg: number,
  st: ReadState,
): LogRecord | undefined {
  const r = readRecord(buf, p, got);
  if (r.ok) {
    const s = r.record;
    return { ...s, offset: st.offset, nextOffset: BigInt(seg.base + inSeg + p + s.size) };
  }
  const more = inSeg + got < seg.size;
  if ((r.problem === 'short-body' || r.problem === 'short-length-prefix') && more) {
    if (p === 0) {
      const claimed = got >= LENGTH_PREFIX_BYTES ? buf.readBigUInt64BE(0) + BigInt(LENGTH_PREFIX_BYTES) : 0n;
      if (claimed > BigInt(seg.size - inSeg)) return fail(st, seg, inSeg, 'length runs past the end of the segment');
      if (st.out.length > 0 && st.bytes + Number(claimed) > st.maxBytes) {
        st.done = true;
        return undefined;
      }
      st.exactNext = claimed > 0n ? Number(claimed) : LENGTH_PREFIX_BYTES;
    }
    return undefined;
  }
  return fail(st, seg, inSeg + p, r.detail);
}

/** Bytes to read for `records` more records: the segment's mean record size with 1/8 slack, so one read suffices. */
function readGuess(seg: Segment, records: number): number {
  const mean = seg.recordBytesHint > 0 ? seg.recordBytesHint : BYTES_PER_RECORD_GUESS;
  return Math.max(MIN_READ_BYTES, records * (mean + (mean >>> 3)));
}

function fail(st: ReadState, seg: Segment, position: number, reason: string): undefined {
  st.done = true;
  if (st.out.length > 0) return undefined;
  throw new CorruptDataError(seg.logFile, position, reason);
}

/**
 * The global offset of the first record with a timestamp ≥ `timestampMs`, or undefined when there is none. Picks the
 * last segment whose first record is older than the target, then scans from its last index entry below it.
 */
export function offsetForTimestampIn(segments: readonly Segment[], timestampMs: bigint): number | undefined {
  const target = Number(timestampMs);
  let from = 0;
  for (let i = segments.length - 1; i >= 0; i--) {
    const first = segments[i]!.index.firstTimestamp();
    if (first !== undefined && first < target) {
      from = i;
      break;
    }
  }
  for (let i = from; i < segments.length; i++) {
    const seg = segments[i]!;
    const hit = scanForTimestamp(seg, seg.index.scanStartFor(target), timestampMs);
    if (hit !== undefined) return hit;
  }
  return undefined;
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
