import type { LogFencedError } from '../errors.js';
import { type RecordToStore, type StoredRecord, recordSize } from './record.js';
import type { RecordSource } from './record-source.js';

/**
 * What the broker needs from one partition's log, whichever backend holds it. Offsets are opaque cursors
 * (semantics.md §7): byte positions on the segmented backend, message counts on the commit log.
 *
 * Appends are written (not fsynced) synchronously, all records of one call in one write per segment; `sync()`
 * makes everything appended so far durable and is group-committed, so concurrent callers share an fsync.
 */
export interface PartitionLog {
  readonly backend: 'segmented' | 'commitlog';
  readonly dir: string;
  /** The oldest offset still readable (moves up with retention). */
  readonly logStartOffset: bigint;
  /** The offset the next append gets (LEO). */
  readonly logEndOffset: bigint;
  /** fsyncs issued by this log so far (tests assert "a 20-record batch costs exactly 1 fsync"). */
  readonly fsyncCount: number;
  /**
   * Everything below this offset is on disk: covered by a completed fsync, or found by recovery at open. At most
   * the LEO. The broker's read ceiling under acks=leader (semantics.md §11 in docs/semantics.md).
   */
  readonly durableEndOffset: bigint;
  /**
   * Set once an fsync of this log failed: from then on `append` and `sync` fail with this error and the durable end
   * stops moving, until the log is reopened (whose recovery decides what survived).
   */
  readonly fenced: LogFencedError | undefined;

  /**
   * Appends records in order. On a failure part-way it stops: `offsets` holds the offsets of the prefix that was
   * written and `error` says why the rest was not.
   */
  append(records: readonly RecordToStore[]): AppendResult;
  /**
   * `append` for a RecordSource, offsets as numbers (byte positions stay below 2^53): the produce hot path's form.
   * Optional: a backend without it is given RecordToStore lists.
   */
  appendSource?(source: RecordSource): SourceAppendResult;
  /**
   * Cuts the log back so that `offset` (a record start this log returned, at or above the log start) is the LEO.
   * Optional: a backend without it cannot take back a partial batch's records past the failure point.
   */
  truncateTo?(offset: bigint): void;
  /** Makes every append so far durable; rejects (with the fence) if the log is or becomes fenced. */
  sync(): Promise<void>;
  /**
   * Reads whole records from `offset` (which must be a record start, the LEO, or below the log start: it is moved
   * up to the start), at most `maxRecords` and about `maxBytes` (at least one record is returned when any exists).
   */
  read(offset: bigint, limits: ReadLimits): LogRecord[];
  /**
   * Optional fast path of `read` for the FETCH encoder: the plain records from `offset` (a record start below
   * 2^53) as one run of verified on-disk bytes; undefined wherever `read` must be asked instead.
   */
  readRaw?(offset: number, limits: RawReadLimits): RawRun | undefined;
  /** The first record with timestamp ≥ `timestampMs`; `found: false` with the LEO when there is none. */
  offsetForTimestamp(timestampMs: bigint): { offset: bigint; found: boolean };
  /** fsync, checkpoint, clean-shutdown marker, close every file handle. */
  close(): Promise<void>;
}

export interface AppendResult {
  offsets: bigint[];
  error?: Error;
}

export interface SourceAppendResult {
  offsets: number[];
  error?: Error;
}

export interface ReadLimits {
  maxRecords: number;
  maxBytes?: number;
}

/**
 * A buffer raw reads fill from `used` on instead of allocating one per read, while it has room (a poll resets
 * `used`; a run read into it is valid only until then). `demand` sums what reads wanted since the last reset, so the
 * owner can size the next one's buffer.
 */
export interface ReadScratch {
  buf: Buffer;
  used: number;
  demand: number;
}

export interface RawReadLimits extends ReadLimits {
  scratch?: ReadScratch | undefined;
}

export interface LogRecord extends StoredRecord {
  offset: bigint;
  /** The offset of the record after this one (what a consumer commits). */
  nextOffset: bigint;
}

export type { RecordToStore, StoredRecord };

/**
 * The offsets `log.append(records)` would give the records if called now, before anything else is appended: byte
 * positions from the LEO on the segmented backend (a roll starts the next segment at the old one's end, so it moves
 * nothing), consecutive counts on the commit log. Lets a caller write down where records will land before writing
 * them (the idempotent produce path memoizes its acks first).
 */
export function nextOffsets(log: PartitionLog, records: readonly RecordToStore[]): bigint[] {
  const offsets = new Array<bigint>(records.length);
  let next = log.logEndOffset;
  for (let i = 0; i < records.length; i++) {
    offsets[i] = next;
    next += log.backend === 'segmented' ? BigInt(recordSize(records[i]!)) : 1n;
  }
  return offsets;
}

/**
 * Whole plain records `buf[start, end)`, `count` of them, the first at global offset `offset` (positions map to
 * offsets one to one: a record at `buf[p]` has offset `offset + p - start`). Each record's key and value are
 * `size − PLAIN_RECORD_OVERHEAD (raw-reader.ts)` bytes.
 */
export interface RawRun {
  buf: Buffer;
  start: number;
  end: number;
  count: number;
  offset: number;
}
