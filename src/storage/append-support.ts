/**
 * Small pieces of the segmented log's append path that need none of its state: the fault-injection limit, the
 * scratch buffer's growth, and the wrapping of a failure as a StorageError.
 */
import { LogFencedError, StorageError } from '../errors.js';
import type { AppendResult, SourceAppendResult } from './partition-log.js';

export interface SegmentedLogFaults {
  /** Each `append` call writes only its first n records and reports an error for the rest. */
  failAfterRecords?: number;
}

/** `faults.failAfterRecords`: how many of `count` records this call may write, and the error for the rest. */
export function injectedLimit(
  faults: SegmentedLogFaults | undefined,
  count: number,
): { limit: number; error?: StorageError } {
  const failAfter = faults?.failAfterRecords;
  if (failAfter === undefined || failAfter >= count) return { limit: count };
  const limit = Math.max(0, failAfter);
  return { limit, error: new StorageError(`injected write failure after ${limit} of ${count} records`) };
}

/** A scratch buffer of at least `need` bytes (doubling), holding the first `keep` bytes of `scratch`. */
export function grownScratch(scratch: Buffer, keep: number, need: number): Buffer<ArrayBuffer> {
  let len = scratch.length * 2;
  while (len < need) len *= 2;
  const bigger = Buffer.allocUnsafe(len);
  scratch.copy(bigger, 0, 0, keep);
  return bigger;
}

export function asStorageError(err: unknown, what: string): Error {
  return err instanceof StorageError || err instanceof LogFencedError
    ? err
    : new StorageError(`${what}: ${(err as Error).message}`, { cause: err });
}

/** A source append's result in `append`'s form (bigint offsets). */
export function withBigintOffsets(result: SourceAppendResult): AppendResult {
  const offsets = result.offsets.map(BigInt);
  return result.error ? { offsets, error: result.error } : { offsets };
}
