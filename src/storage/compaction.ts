/**
 * Cleanup for the commit-log backend (storage.md §8.2) and the start-up replay of compacted internal topics
 * (semantics.md §6, §7, §10).
 *
 * `compact`: across the closed segments, the latest record per key survives and a zero-length stored value (a
 * tombstone) removes its key entirely, older values and the tombstone itself. Survivors keep their bytes and are
 * renumbered contiguously from their segment's base, leaving a gap before the next segment that readers skip.
 *
 * Crash safety: a segment is rewritten as `<base>.log.cleaned` + `<base>.index.cleaned`, both fsynced, then renamed
 * over the originals and the directory fsynced. A crash before the log rename leaves the old `.log` and a leftover
 * `.cleaned` that recovery deletes; after it, the new `.log` is in place and the index is rebuilt from it anyway.
 * Segments are cleaned front to back, so a tombstone is never dropped while an older value of its key still exists
 * in an earlier segment: any prefix of the work replays to the same state.
 */
import { storageFs as fs } from './file-io.js';
import path from 'node:path';
import type { PartitionLog } from './partition-log.js';
import { scanRecords, withReadOnlyFile } from './record-scanner.js';

export type CleanupPolicy = 'delete' | 'compact';

/** A closed segment as the commit log tracks it. */
export interface CleanableSegment {
  readonly base: bigint;
  readonly logPath: string;
  readonly indexPath: string;
  readonly size: number;
  readonly positions: readonly number[];
}

/** What a segment became: rewritten (new positions and size), unchanged, or removed because nothing survived. */
export type CompactionOutcome =
  { kind: 'unchanged' } | { kind: 'rewritten'; size: number; positions: number[] } | { kind: 'removed' };

export interface CompactionStats {
  outcomes: CompactionOutcome[];
  recordsBefore: number;
  recordsAfter: number;
  /** fsyncs issued (files and directory), for the owning log's count. */
  fsyncs: number;
}

type Location = { segment: number; index: number };

/** Latest location per key (latin1 maps bytes 1:1 to a string key). */
function latestByKey(segments: readonly CleanableSegment[]): Map<string, Location> {
  const latest = new Map<string, Location>();
  segments.forEach((seg, segment) => {
    withReadOnlyFile(seg.logPath, (fd) => {
      let index = 0;
      for (const item of scanRecords(fd, seg.size)) {
        if (!item.ok) break;
        latest.set(item.record.key.toString('latin1'), { segment, index });
        index++;
      }
    });
  });
  return latest;
}

function writeAll(fd: number, buf: Buffer): void {
  let done = 0;
  while (done < buf.length) done += fs.writeSync(fd, buf, done, buf.length - done, done);
}

function fsyncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Compacts `segments` (closed, in base order) in place. The caller must have closed its handles on them. */
export function compactSegments(segments: readonly CleanableSegment[]): CompactionStats {
  const latest = latestByKey(segments);
  const stats: CompactionStats = { outcomes: [], recordsBefore: 0, recordsAfter: 0, fsyncs: 0 };
  segments.forEach((seg, segment) => {
    const kept = survivors(seg, segment, latest);
    stats.recordsBefore += kept.total;
    stats.recordsAfter += kept.positions.length;
    if (kept.positions.length === kept.total && kept.size === seg.size) {
      stats.outcomes.push({ kind: 'unchanged' });
    } else if (kept.positions.length === 0) {
      stats.fsyncs += removeSegment(seg);
      stats.outcomes.push({ kind: 'removed' });
    } else {
      stats.fsyncs += rewriteSegment(seg, kept);
      stats.outcomes.push({ kind: 'rewritten', size: kept.size, positions: kept.positions });
    }
  });
  return stats;
}

/** The records of one segment that survive: each key's latest record, unless it is a tombstone. */
interface Survivors {
  records: Buffer[];
  /** Byte position of each survivor in the rewritten segment. */
  positions: number[];
  size: number;
  /** Records in the segment before compaction. */
  total: number;
}

function survivors(seg: CleanableSegment, segment: number, latest: ReadonlyMap<string, Location>): Survivors {
  const kept: Survivors = { records: [], positions: [], size: 0, total: 0 };
  withReadOnlyFile(seg.logPath, (fd) => {
    let index = 0;
    for (const item of scanRecords(fd, seg.size)) {
      if (!item.ok) break;
      kept.total++;
      const at = latest.get(item.record.key.toString('latin1'));
      if (at?.segment === segment && at.index === index && item.record.value.length > 0) {
        kept.positions.push(kept.size);
        kept.records.push(Buffer.from(item.bytes));
        kept.size += item.bytes.length;
      }
      index++;
    }
  });
  return kept;
}

/** Deletes a segment nothing survived in; returns the fsyncs issued. */
function removeSegment(seg: CleanableSegment): number {
  // The .log goes first: an .index left without its .log is deleted by recovery.
  fs.rmSync(seg.logPath, { force: true });
  fs.rmSync(seg.indexPath, { force: true });
  fsyncDir(path.dirname(seg.logPath));
  return 1;
}

/** Writes the survivors as `.cleaned` files, fsyncs them and renames them over the segment; returns the fsyncs. */
function rewriteSegment(seg: CleanableSegment, kept: Survivors): number {
  const index = Buffer.allocUnsafe(kept.positions.length * 8);
  kept.positions.forEach((p, i) => {
    index.writeUInt32BE(i, i * 8);
    index.writeUInt32BE(p, i * 8 + 4);
  });
  const cleanedLog = `${seg.logPath}.cleaned`;
  const cleanedIndex = `${seg.indexPath}.cleaned`;
  let fsyncs = 0;
  for (const [file, bytes] of [
    [cleanedLog, Buffer.concat(kept.records, kept.size)],
    [cleanedIndex, index],
  ] as const) {
    const fd = fs.openSync(file, 'w');
    try {
      writeAll(fd, bytes);
      fs.fsyncSync(fd);
      fsyncs++;
    } finally {
      fs.closeSync(fd);
    }
  }
  fs.renameSync(cleanedLog, seg.logPath);
  fs.renameSync(cleanedIndex, seg.indexPath);
  fsyncDir(path.dirname(seg.logPath));
  return fsyncs + 1;
}

/**
 * `delete` with a byte budget: how many of the oldest segments to drop so that the log (all `sizes`, active last)
 * fits in `maxLogBytes`. The active segment is never dropped; 0 keeps everything.
 */
export function segmentsOverBudget(sizes: readonly number[], maxLogBytes: number): number {
  if (maxLogBytes <= 0) return 0;
  let total = sizes.reduce((a, b) => a + b, 0);
  let drop = 0;
  while (total > maxLogBytes && drop < sizes.length - 1) total -= sizes[drop++]!;
  return drop;
}

/** One key's surviving state after a replay. */
export interface ReplayEntry {
  key: Buffer;
  value: Buffer;
  partition: number;
  offset: bigint;
  timestamp: bigint;
}

/**
 * Replays a compacted topic the way the broker does at start: partitions in the order given (1..N), each front to
 * back, the last record per key winning and a zero-length value deleting the key. Keys and values are copied, so
 * the result holds no read buffers. The map is keyed by the key's hex.
 */
export function replayCompacted(partitions: readonly PartitionLog[], batchRecords = 1024): Map<string, ReplayEntry> {
  const state = new Map<string, ReplayEntry>();
  partitions.forEach((log, i) => {
    let offset = log.logStartOffset;
    while (offset < log.logEndOffset) {
      const batch = log.read(offset, { maxRecords: batchRecords, maxBytes: 4 * 1_048_576 });
      if (batch.length === 0) break;
      for (const rec of batch) {
        const id = rec.key.toString('hex');
        if (rec.value.length === 0) state.delete(id);
        else {
          state.set(id, {
            key: Buffer.from(rec.key),
            value: Buffer.from(rec.value),
            partition: i + 1,
            offset: rec.offset,
            timestamp: rec.timestamp,
          });
        }
      }
      offset = batch[batch.length - 1]!.nextOffset;
    }
  });
  return state;
}
