/**
 * How far consumers may read a partition (docs/semantics.md, "Durable read ceiling"). Under acks=leader it is the
 * log's durable end: the end of what completed fsyncs cover, so no consumer sees or commits a record that a power
 * loss could erase or that was reported to its producer as failed. Under acks=none nothing is ever fsynced on
 * request, so it is the LEO, and LIST_OFFSETS says so by clearing OFFSETS_FLAG_HWM_EXACT.
 */
import type { PartitionLog } from '../storage/partition-log.js';
import type { AcksMode } from './config.js';

/** The high watermark: the first offset consumers may not read yet. */
export function highWatermark(acks: AcksMode, log: PartitionLog): bigint {
  return acks === 'none' ? log.logEndOffset : log.durableEndOffset;
}

export function minOffset(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
