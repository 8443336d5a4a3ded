/**
 * Age-based retention for the segmented backend (storage.md §8.1): a non-active segment is deleted when it started
 * before now − retention **and** the segment after it also started before that cutoff, i.e. when every record it
 * holds is older than the cutoff. Only whole segments go, oldest first, and the active segment never does.
 * Internal `__*` topics are never cleaned this way; that is the broker's check, not this module's.
 */
import { fsyncDirSync } from './file-io.js';
import type { Segment } from './segment.js';

export interface RetentionResult {
  deletedSegments: number;
  deletedBytes: number;
  /** The log start offset after the deletion. */
  logStartOffset: bigint;
}

/** How many leading segments (by start time, oldest first, the last being active) retention deletes. */
export function expiredSegmentCount(createdAtMs: readonly number[], nowMs: number, retentionMs: number): number {
  const cutoff = nowMs - retentionMs;
  let n = 0;
  while (n < createdAtMs.length - 1 && createdAtMs[n]! < cutoff && createdAtMs[n + 1]! < cutoff) n++;
  return n;
}

/**
 * Removes the expired leading segments from `segments` (in place), unlinks their files, fsyncs `dir` and closes them
 * once no fsync runs on them.
 */
export async function deleteExpiredSegments(
  segments: Segment[],
  dir: string,
  nowMs: number,
  retentionMs: number,
): Promise<{ deletedSegments: number; deletedBytes: number }> {
  const n = expiredSegmentCount(
    segments.map((s) => s.createdAtMs),
    nowMs,
    retentionMs,
  );
  const gone = segments.splice(0, n);
  let deletedBytes = 0;
  for (const seg of gone) {
    deletedBytes += seg.size;
    seg.unlinkFiles();
  }
  if (n > 0) fsyncDirSync(dir);
  await Promise.all(gone.map((seg) => seg.close()));
  return { deletedSegments: n, deletedBytes };
}
