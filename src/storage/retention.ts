/**
 * Age-based retention for the segmented backend (storage.md §8.1): a non-active segment is deleted when it started
 * before now − retention **and** the segment after it also started before that cutoff, i.e. when every record it
 * holds is older than the cutoff. Only whole segments go, oldest first, and the active segment never does.
 * Internal `__*` topics are never cleaned this way; that is the broker's check, not this module's.
 */

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
