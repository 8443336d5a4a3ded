/**
 * How far consumers may read a partition (docs/semantics.md, "Durable read ceiling"). Under acks=leader it is the
 * log's durable end: the end of what completed fsyncs cover, so no consumer sees or commits a record that a power
 * loss could erase or that was reported to its producer as failed. Under acks=none nothing is ever fsynced on
 * request, so it is the LEO, and LIST_OFFSETS says so by clearing OFFSETS_FLAG_HWM_EXACT.
 *
 * A durable end is not always enough: start-up replay takes back every record of a durable idempotent request that
 * is not there in full (producer-state/verify-memos.ts), so a part of such a request that one partition's fsync (or
 * a segment roll's) made durable is still erased if the power goes out before the rest is. Such a request holds
 * the ceiling of each partition it wrote at its first offset there until all its data fsyncs have ended.
 */
import type { PartitionLog } from '../storage/partition-log.js';
import type { AcksMode } from './config.js';

/** Per log, the first offsets of the requests holding its ceiling (a request may hold several logs). */
const holds = new WeakMap<PartitionLog, Set<{ from: bigint }>>();

/** Keeps consumers below `from` on `log` until the returned release is called. */
export function holdReads(log: PartitionLog, from: bigint): () => void {
  let set = holds.get(log);
  if (!set) holds.set(log, (set = new Set()));
  const hold = { from };
  set.add(hold);
  return () => {
    set.delete(hold);
  };
}

/** The high watermark: the first offset consumers may not read yet. */
export function highWatermark(acks: AcksMode, log: PartitionLog): bigint {
  if (acks === 'none') return log.logEndOffset;
  let hwm = log.durableEndOffset;
  const held = holds.get(log);
  if (held) for (const { from } of held) if (from < hwm) hwm = from;
  return hwm;
}

export function minOffset(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
