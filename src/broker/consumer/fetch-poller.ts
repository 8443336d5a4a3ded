/**
 * One poll over the partitions a consumer reads (semantics.md §11): for each partition, read from its cursor while
 * fewer than `allowance` data records were taken and the offset is below the read ceiling, stopping the whole poll
 * at `maxRecords` (or at the byte budget, so a reply stays well under the client's 16 MiB frame limit).
 * Control records, and under read_committed the records of aborted transactions, are stepped over and never counted. Values are decompressed here, so every value that leaves the
 * poll is plaintext. The poll reads only; the caller moves the cursors once the records were handed to the send layer.
 */
import { CodecError, decompressValue } from '../../protocol/compression.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import type { LogRecord, PartitionLog } from '../../storage/partition-log.js';
import { RecordAttr } from '../../storage/record.js';
import { HandlerError } from '../handler.js';

export interface PollTarget {
  topic: string;
  /** UTF-8 bytes of the topic name, encoded once per poll. */
  topicBytes: Buffer;
  partition: number;
  log: PartitionLog;
  /** Where this consumer's group stands (in-memory cursor, else committed offset, else 0). */
  cursor: bigint;
  /** The read ceiling: the LEO, or min(LEO, LSO) under read_committed. */
  ceiling: bigint;
  /** read_committed only, and only when the partition has aborted ranges: true for a record to skip. */
  isAborted?: ((offset: bigint, producerId: bigint, epoch: number) => boolean) | undefined;
}

export interface PolledPartition {
  target: PollTarget;
  records: LogRecord[];
  /** Plaintext values, parallel to `records`. */
  values: Buffer[];
  /** The first record not handed out: what the cursor moves to and what gets committed. */
  nextCursor: bigint;
}

export interface PollOptions {
  maxRecords: number;
  allowance: number;
  maxBytes: number;
}

export interface PollResult {
  /** Partitions that yielded records or whose cursor moved (past control records, up to the log start, to the LEO). */
  partitions: PolledPartition[];
  total: number;
  bytes: number;
}

export const DEFAULT_POLL_BYTES = 8 * 1_048_576;

/** max(1, ceil(maxRecords / P)) over the P partitions the consumer reads. */
export function perPartitionAllowance(maxRecords: number, partitionCount: number): number {
  if (partitionCount <= 0) return 1;
  return Math.max(1, Math.ceil(maxRecords / partitionCount));
}

export function poll(targets: readonly PollTarget[], opts: PollOptions): PollResult {
  const result: PollResult = { partitions: [], total: 0, bytes: 0 };
  for (const target of targets) {
    if (result.total >= opts.maxRecords || result.bytes >= opts.maxBytes) break;
    const stop = pollPartition(target, opts, result);
    if (stop) break;
  }
  return result;
}

/** Returns true when the whole poll must stop (a value failed to decompress after records were collected). */
function pollPartition(target: PollTarget, opts: PollOptions, result: PollResult): boolean {
  const { log } = target;
  let cursor = target.cursor;
  if (cursor < log.logStartOffset) cursor = log.logStartOffset;
  else if (cursor > log.logEndOffset) cursor = log.logEndOffset;
  const ceiling = target.ceiling < log.logEndOffset ? target.ceiling : log.logEndOffset;
  const records: LogRecord[] = [];
  const values: Buffer[] = [];
  let halted = false;
  let taken = 0;
  outer: while (taken < opts.allowance && cursor < ceiling) {
    const batch = readOrThrow(
      log,
      cursor,
      opts.allowance - taken,
      Math.max(1, opts.maxBytes - result.bytes),
      result.total + records.length,
    );
    if (batch === undefined) {
      halted = true;
      break;
    }
    if (batch.length === 0) {
      // An EOF or torn tail below the LEO: nothing more is readable here, so the cursor skips to the end.
      cursor = log.logEndOffset;
      break;
    }
    for (const rec of batch) {
      if (rec.offset >= ceiling) break outer;
      if (rec.attrs & RecordAttr.CONTROL) {
        cursor = rec.nextOffset;
        continue;
      }
      if (
        target.isAborted &&
        rec.attrs & RecordAttr.TRANSACTIONAL &&
        target.isAborted(rec.offset, rec.producerId!, rec.epoch!)
      ) {
        cursor = rec.nextOffset;
        continue;
      }
      let value: Buffer;
      try {
        value =
          rec.attrs & RecordAttr.CODEC_MASK ? decompressValue(rec.attrs & RecordAttr.CODEC_MASK, rec.value) : rec.value;
      } catch (err) {
        if (result.total + records.length > 0) {
          halted = true;
          break outer;
        }
        const why = err instanceof CodecError ? err.message : String(err);
        throw new HandlerError(
          ErrorCode.INTERNAL,
          `decompress ${target.topic}/partition-${target.partition} offset ${rec.offset}: ${why}`,
        );
      }
      records.push(rec);
      values.push(value);
      cursor = rec.nextOffset;
      taken++;
      result.bytes += rec.key.length + value.length;
      if (result.total + taken >= opts.maxRecords || taken >= opts.allowance || result.bytes >= opts.maxBytes)
        break outer;
    }
  }
  result.total += records.length;
  if (records.length > 0 || cursor !== target.cursor) {
    result.partitions.push({ target, records, values, nextCursor: cursor });
  }
  return halted;
}

/** Reads; a failure before anything was collected fails the FETCH, after it the poll returns what it has. */
function readOrThrow(
  log: PartitionLog,
  offset: bigint,
  maxRecords: number,
  maxBytes: number,
  collected: number,
): LogRecord[] | undefined {
  try {
    return log.read(offset, { maxRecords, maxBytes });
  } catch (err) {
    if (collected > 0) return undefined;
    throw err;
  }
}
