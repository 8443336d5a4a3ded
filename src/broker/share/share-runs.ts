/**
 * The unit of a share-partition's in-flight window: a run of consecutive in-flight records that share a state, a
 * delivery count and (when Acquired) an owner and lock (KIP-932's in-flight batches). A fetch that reads 1,000 new
 * records adds one run, an ack range that covers it moves it in one step, and the snapshot writes one entry for it,
 * so the window's cost follows the number of reads and acks, not of records.
 *
 * Offsets are the log's own (byte positions under the segmented backend), so a run cannot be split by offset
 * arithmetic: it keeps its records' starts in `offsets`. A run restored from `__share_group_state` knows only its
 * first and last offset and its count until it is read again (acquire.ts resolves it then).
 */
import type { RecordStateValue } from '../../storage/share-state-codec.js';

export interface Run {
  /** Start of the run's first record. */
  first: bigint;
  /** Start of the run's last record. */
  last: bigint;
  /** Records in the run (≥ 1). */
  count: number;
  /** The starts of the run's `count` records in order, when known. */
  offsets: BigUint64Array | undefined;
  state: RecordStateValue;
  deliveryCount: number;
  /** The member holding the lock (Acquired only). */
  owner: string | undefined;
  /** Broker-clock ms at which the lock expires (Acquired only). */
  lockDeadline: number;
  /** When the run was acquired (Acquired only), for the oldest lock age. */
  acquiredAt: number;
  /** A RELEASE with a delay keeps an Available run unacquirable until then. */
  availableAt: number;
}

export function newRun(
  offsets: BigUint64Array | undefined,
  first: bigint,
  last: bigint,
  count: number,
  state: RecordStateValue,
  deliveryCount: number,
): Run {
  return {
    first,
    last,
    count,
    offsets,
    state,
    deliveryCount,
    owner: undefined,
    lockDeadline: 0,
    acquiredAt: 0,
    availableAt: 0,
  };
}

/** A run over `offsets` (non-empty, ascending). */
export function runOf(offsets: BigUint64Array, state: RecordStateValue, deliveryCount: number): Run {
  return newRun(offsets, offsets[0]!, offsets[offsets.length - 1]!, offsets.length, state, deliveryCount);
}

/** Index of the first record of `run` at or after `offset` (`run.count` when none); the run's offsets must be known. */
export function indexAtOrAfter(run: Run, offset: bigint): number {
  const o = run.offsets!;
  let lo = 0;
  let hi = o.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (o[mid]! < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Records of `run` with first ≤ offset ≤ last; exact when the offsets are known, else the whole run or nothing. */
export function recordsBetween(run: Run, first: bigint, last: bigint): number {
  if (run.last < first || run.first > last) return 0;
  if (first <= run.first && last >= run.last) return run.count;
  if (!run.offsets) return run.count;
  return indexAtOrAfter(run, last + 1n) - indexAtOrAfter(run, first);
}

/**
 * Splits `run` before its record `index` (0 < index < count, offsets known): `run` keeps the records before it and
 * the returned run, a copy of every other field, holds the rest.
 */
export function splitAt(run: Run, index: number): Run {
  const o = run.offsets!;
  const tail: Run = { ...run, offsets: o.subarray(index), first: o[index]!, count: run.count - index };
  run.offsets = o.subarray(0, index);
  run.last = o[index - 1]!;
  run.count = index;
  return tail;
}
