/**
 * The read side of the segmented backend: bounded reads across segment boundaries and the timestamp scan.
 *
 * Each read call does one `readSync` per segment chunk into a buffer allocated for that call, and the returned
 * records' `key` and `value` are zero-copy views into it: they stay valid for as long as the caller holds them and
 * are never overwritten by a later read.
 */
import { CorruptDataError } from '../errors.js';
import type { LogRecord, ReadLimits } from './partition-log.js';
import { LENGTH_PREFIX_BYTES, readRecord } from './record.js';
import type { Segment } from './segment.js';

/** Bytes read per call when the caller sets no `maxBytes`. */
export const DEFAULT_READ_MAX_BYTES = 1024 * 1024;
/** How many bytes a still-wanted record is guessed to need, to size a read when `maxRecords` is small. */
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
    const guess = Math.max(MIN_READ_BYTES, (maxRecords - out.length) * BYTES_PER_RECORD_GUESS);
    const want = Math.min(seg.size - inSeg, exactNext > 0 ? exactNext : Math.max(Math.min(budget, guess), LENGTH_PREFIX_BYTES));
    exactNext = 0;
    const buf = Buffer.allocUnsafe(want);
    const got = seg.read(buf, 0, want, inSeg);
    let p = 0;
    while (p < got && out.length < maxRecords) {
      const r = readRecord(buf, p, got);
      if (!r.ok) {
        const more = inSeg + got < seg.size;
        if ((r.problem === 'short-body' || r.problem === 'short-length-prefix') && more) {
          if (p === 0) {
            const claimed = got >= LENGTH_PREFIX_BYTES ? buf.readBigUInt64BE(0) + BigInt(LENGTH_PREFIX_BYTES) : 0n;
            if (claimed > BigInt(seg.size - inSeg)) return fail(out, seg, inSeg, 'length runs past the end of the segment');
            if (out.length > 0 && bytes + Number(claimed) > maxBytes) return out;
            exactNext = claimed > 0n ? Number(claimed) : LENGTH_PREFIX_BYTES;
          }
          break;
        }
        return fail(out, seg, inSeg + p, r.detail);
      }
      const rec = r.record;
      if (out.length > 0 && bytes + rec.size > maxBytes) return out;
      const next = BigInt(seg.base + inSeg + p + rec.size);
      out.push({
        attrs: rec.attrs,
        timestamp: rec.timestamp,
        key: rec.key,
        value: rec.value,
        headers: rec.headers,
        producerId: rec.producerId,
        epoch: rec.epoch,
        size: rec.size,
        offset,
        nextOffset: next,
      });
      offset = next;
      bytes += rec.size;
      p += rec.size;
    }
    inSeg += p;
    pos = seg.base + inSeg;
  }
  return out;
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
