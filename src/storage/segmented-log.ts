/**
 * The segmented backend (storage.md §8.1), byte-compatible with MoonMQ data directories:
 *
 *   <dataDir>/<topic>/partition-<id>/
 *     %020d.log %020d.timeindex %020d.meta    one triple per segment (segment.ts, time-index.ts)
 *     recovery-checkpoint                     decimal global offset: the base at the last roll, or the LEO at close
 *     .clean-shutdown                         "1", written at close and removed on load
 *     crater-recovery-point                   crater only: below it the active segment was fsynced (recovery-point.ts)
 *
 * Offsets are global byte positions: the first record is at 0 and the next record's offset is offset + size.
 *
 * Appends write and never fsync. One `append` call encodes all its records into one reusable scratch buffer and
 * issues one positional write per segment it touches (plus a time-index write when a segment's first entry or 16
 * entries are queued: TimeIndex.flushSome). A roll happens before a record when the segment is non-empty and would
 * grow past `maxSegmentSize`. `sync()` goes through segmented-durability.ts (the partition's group commit, the
 * durable end) and fsyncs the active log file only; the time index is fsynced at roll and close, as MoonMQ does.
 *
 * Fault injection for tests: `faults.failAfterRecords = n` makes every later `append` call write only its first n
 * records and return their offsets with a StorageError for the rest, exactly like a write failing part-way. The
 * `faults` object is read on every call, so a test may set or clear it on an open log.
 */
import { LogFencedError, StorageError } from '../errors.js';
import { fsyncDirSync } from './file-io.js';
import type { GroupCommitterOptions } from './group-committer.js';
import { type SegmentedLogFaults, asStorageError, grownScratch, injectedLimit } from './append-support.js';
import { withBigintOffsets } from './append-support.js';
import type {
  AppendResult,
  LogRecord,
  PartitionLog,
  RawReadLimits,
  ReadLimits,
  RecordToStore,
} from './partition-log.js';
import type { SourceAppendResult } from './partition-log.js';
import { type RecordSource, StoredRecordsSource } from './record-source.js';
import { type RecoveryReport, loadSegments, writeCleanShutdownMarker } from './recovery.js';
import { type RawRun, readRawRun } from './raw-reader.js';
import { RecoveryPointTracker } from './recovery-point.js';
import { type RetentionResult, deleteExpiredSegments } from './retention.js';
import { Segment } from './segment.js';
import { SegmentedDurability } from './segmented-durability.js';
import { offsetForTimestampIn, readRecords } from './segment-reader.js';
import { DEFAULT_SEGMENTED_MAX_SEGMENT_SIZE, checkMaxSegmentSize } from './topic-config.js';

export interface SegmentedLogOptions {
  /** Roll threshold in bytes; default 1 GiB, at most 4 GiB (time-index positions are u32). */
  maxSegmentSize?: number;
  /** Create the partition directory when it is missing; otherwise a missing directory is a StorageError. */
  create?: boolean;
  groupCommit?: GroupCommitterOptions;
  /** Test hook; see the file comment. */
  faults?: SegmentedLogFaults;
  /** The clock for `.meta` and retention fallbacks, in ms (tests pin it). */
  now?: () => number;
  /** How far the durable end moves between writes of `crater-recovery-point` while running (default 16 MiB). */
  recoveryPointIntervalBytes?: number;
}

export type { SegmentedLogFaults };

const INITIAL_SCRATCH_BYTES = 64 * 1024;

/**
 * One append call's progress: `active` gets the records encoded into scratch[segStart, fill); of `offsets` (every
 * record encoded so far) the first `flushed` are already written to segments rolled since.
 */
interface AppendRun {
  active: Segment;
  segStart: number;
  fill: number;
  offsets: number[];
  flushed: number;
}

export class SegmentedLog implements PartitionLog {
  readonly backend = 'segmented' as const;
  readonly dir: string;
  /** What load-time recovery did (which segments it verified, what it cut). */
  readonly recovery: RecoveryReport;
  faults: SegmentedLogFaults | undefined;
  /** Segments created by a roll since open. */
  rollCount = 0;
  private maxSegmentBytes: number;
  private readonly segments: Segment[];
  private readonly durability: SegmentedDurability;
  private readonly points: RecoveryPointTracker;
  private readonly now: () => number;
  private scratch = Buffer.allocUnsafe(INITIAL_SCRATCH_BYTES);
  /** Set when a roll's own fsync failed; the durability side holds the fence of a failed `sync()`. */
  private rollFence: LogFencedError | undefined;
  private closed = false;
  /**
   * Set by a failed write, which may leave a torn tail past the tracked size; only then does the next append fstat
   * the file (an fstat per append cost about 2% of produce). Foreign bytes past the tracked end are not looked for.
   */
  private tailSuspect = false;

  private constructor(
    dir: string,
    segments: Segment[],
    recovery: RecoveryReport,
    options: SegmentedLogOptions,
    now: () => number,
  ) {
    this.dir = dir;
    this.segments = segments;
    this.recovery = recovery;
    this.now = now;
    this.faults = options.faults;
    this.maxSegmentBytes = checkMaxSegmentSize(options.maxSegmentSize ?? DEFAULT_SEGMENTED_MAX_SEGMENT_SIZE);
    this.points = new RecoveryPointTracker(
      dir,
      recovery.checkpoint,
      recovery.recoveryPoint,
      options.recoveryPointIntervalBytes,
    );
    this.durability = new SegmentedDurability(() => this.active, this.points, this.active.end, options.groupCommit);
  }

  static async open(dir: string, options: SegmentedLogOptions = {}): Promise<SegmentedLog> {
    return SegmentedLog.openSync(dir, options);
  }

  /** Loads (and recovers) the partition at `dir`. Throws StorageError when it is missing or unusable. */
  static openSync(dir: string, options: SegmentedLogOptions = {}): SegmentedLog {
    const now = options.now ?? Date.now;
    checkMaxSegmentSize(options.maxSegmentSize ?? DEFAULT_SEGMENTED_MAX_SEGMENT_SIZE);
    const { segments, recovery } = loadSegments(dir, options.create ?? false, now);
    // After a crash the bytes recovery accepted may still be only in the page cache; they are served from now on,
    // so they go to disk first (one fsync, on unclean starts only).
    const active = segments[segments.length - 1]!;
    if (!recovery.cleanShutdown && active.size > 0) active.syncAllSync();
    return new SegmentedLog(dir, segments, recovery, options, now);
  }

  get logStartOffset(): bigint {
    return BigInt(this.segments[0]!.base);
  }

  get logEndOffset(): bigint {
    return BigInt(this.active.end);
  }

  get durableEndOffset(): bigint {
    return BigInt(this.durability.durableEnd(this.active.end));
  }

  get fenced(): LogFencedError | undefined {
    return this.durability.fenced ?? this.rollFence;
  }

  /** fsyncs issued through `sync()` (a roll's and close's own fsyncs are not counted). */
  get fsyncCount(): number {
    return this.durability.fsyncCount;
  }

  get maxSegmentSize(): number {
    return this.maxSegmentBytes;
  }

  /** Changes the roll threshold of an open log (ALTER_TOPIC_CONFIG); it applies from the next append. */
  set maxSegmentSize(bytes: number) {
    this.maxSegmentBytes = checkMaxSegmentSize(bytes);
  }

  get segmentCount(): number {
    return this.segments.length;
  }

  /** Bases of the segments, oldest first (for tests and inspection). */
  segmentBases(): bigint[] {
    return this.segments.map((s) => BigInt(s.base));
  }

  private get active(): Segment {
    return this.segments[this.segments.length - 1]!;
  }

  append(records: readonly RecordToStore[]): AppendResult {
    return withBigintOffsets(this.appendSource(new StoredRecordsSource(records)));
  }

  /**
   * Encodes into the scratch buffer, one positional write per segment touched, rolling first where a record would
   * overflow the active segment. Stops at the first record that cannot be encoded (the ones before it are written)
   * or at a failed write (nothing of that write counts).
   */
  appendSource(source: RecordSource): SourceAppendResult {
    const offsets: number[] = [];
    const refused = this.appendRefusal();
    if (refused) return { offsets, error: refused };
    if (source.count === 0) return { offsets };
    const injected = injectedLimit(this.faults, source.count);
    const run: AppendRun = { active: this.active, segStart: 0, fill: 0, offsets, flushed: 0 };
    const encoded = this.encodeRun(run, source, injected.limit);
    let error = encoded.error ?? injected.error;
    if (!encoded.writeFailed) error = this.flushRun(run) ?? error;
    if (offsets.length > 0) this.durability.wrote();
    return error ? { offsets, error } : { offsets };
  }

  /** Why no append can be made now (closed, fenced, or a torn tail that cannot be repaired), if so. */
  private appendRefusal(): Error | undefined {
    if (this.closed) return new StorageError(`the log at ${this.dir} is closed`);
    const fenced = this.fenced;
    if (fenced) return fenced;
    try {
      this.repairTornTail();
    } catch (err) {
      return asStorageError(err, 'cannot repair the torn tail before an append');
    }
    return undefined;
  }

  /** Encodes records [0, limit) into the scratch buffer, writing out and rolling each segment that fills up. */
  private encodeRun(run: AppendRun, source: RecordSource, limit: number): { error?: Error; writeFailed: boolean } {
    for (let i = 0; i < limit; i++) {
      try {
        const size = source.size(i);
        const inSeg = run.active.size + (run.fill - run.segStart);
        if (inSeg + size > this.maxSegmentBytes && inSeg > 0) {
          try {
            this.flush(run.active, run.segStart, run.fill);
            run.flushed = run.offsets.length;
            run.active = this.roll();
            run.segStart = run.fill;
          } catch (err) {
            return { error: this.writeFailed(run, err), writeFailed: true };
          }
        }
        if (run.fill + size > this.scratch.length) this.scratch = grownScratch(this.scratch, run.fill, run.fill + size);
        source.write(this.scratch, run.fill, i);
        const pos = run.active.size + (run.fill - run.segStart);
        run.active.index.consider(source.timestampMs(i), pos);
        run.offsets.push(run.active.base + pos);
        run.fill += size;
      } catch (err) {
        // A record that cannot be encoded (say, a negative timestamp) ends the call; the ones before it are written.
        return { error: asStorageError(err, `record ${run.offsets.length} cannot be stored`), writeFailed: false };
      }
    }
    return { writeFailed: false };
  }

  /** Writes what the run encoded for its last segment; the write failure, if any. */
  private flushRun(run: AppendRun): Error | undefined {
    try {
      this.flush(run.active, run.segStart, run.fill);
      return undefined;
    } catch (err) {
      return this.writeFailed(run, err);
    }
  }

  /** Nothing of a failed write counts: the file is cut back to the last flushed record and its offsets forgotten. */
  private writeFailed(run: AppendRun, err: unknown): Error {
    this.tailSuspect = true;
    run.active.index.discardPendingFrom(run.active.size);
    run.offsets.length = run.flushed;
    try {
      run.active.truncate(run.active.size);
    } catch {
      // The next append compares the physical size with the tracked one and repairs it then.
    }
    return asStorageError(err, 'write failed');
  }

  /** Makes every append so far durable, sharing the fsync with concurrent callers. */
  sync(): Promise<void> {
    if (this.closed) return Promise.reject(new StorageError(`the log at ${this.dir} is closed`));
    const fenced = this.fenced;
    if (fenced) return Promise.reject(fenced);
    return this.durability.sync();
  }

  read(offset: bigint, limits: ReadLimits): LogRecord[] {
    if (this.closed) throw new StorageError(`the log at ${this.dir} is closed`);
    if (limits.maxRecords <= 0) return [];
    const leo = this.active.end;
    if (offset >= BigInt(leo)) return [];
    const start = Math.max(Number(offset), this.segments[0]!.base);
    return readRecords(this.segments, start, limits);
  }

  /** A run of plain records from `offset` for the FETCH encoder (raw-reader.ts); undefined where `read` must go. */
  readRaw(offset: number, limits: RawReadLimits): RawRun | undefined {
    if (this.closed || offset >= this.active.end) return undefined;
    return readRawRun(this.segments, Math.max(offset, this.segments[0]!.base), limits);
  }

  /**
   * Picks the last segment whose first record is older than `timestampMs`, then scans from its last index entry
   * below the target. Like MoonMQ's lookup this assumes timestamps do not go backwards across segments.
   */
  offsetForTimestamp(timestampMs: bigint): { offset: bigint; found: boolean } {
    const hit = offsetForTimestampIn(this.segments, timestampMs);
    return hit === undefined ? { offset: this.logEndOffset, found: false } : { offset: BigInt(hit), found: true };
  }

  /**
   * Deletes whole non-active segments that are entirely older than `nowMs − retentionMs` (retention.ts). Called by
   * the broker's cleaner; internal topics must not be passed here.
   */
  async applyRetention(nowMs: number, retentionMs: number): Promise<RetentionResult> {
    if (this.closed) throw new StorageError(`the log at ${this.dir} is closed`);
    const deletedBytes = await deleteExpiredSegments(this.segments, this.dir, nowMs, retentionMs);
    return { ...deletedBytes, logStartOffset: this.logStartOffset };
  }

  /**
   * Cuts the log back so that `offset` (a record start returned by `append`, at or above the log start) becomes the
   * LEO, deleting segments rolled past it. The produce path uses it to take back records appended after a
   * batch's failure point; the cut becomes durable with the next `sync()`.
   */
  truncateTo(offset: bigint): void {
    if (this.closed) throw new StorageError(`the log at ${this.dir} is closed`);
    const target = Number(offset);
    if (target >= this.active.end) return;
    if (target < this.segments[0]!.base) {
      throw new StorageError(`cannot truncate ${this.dir} to ${offset}: below the log start ${this.logStartOffset}`);
    }
    let dropped = false;
    while (this.segments.length > 1 && this.active.base > target) {
      const seg = this.segments.pop()!;
      seg.unlinkFiles();
      seg.close().catch(() => undefined);
      dropped = true;
    }
    const seg = this.active;
    seg.index.truncateFrom(target - seg.base);
    seg.truncate(target - seg.base);
    this.durability.cut(target);
    if (dropped) {
      // A checkpoint past the new LEO would make recovery trust bytes that no longer exist.
      this.points.writeCheckpoint(seg.base);
      fsyncDirSync(this.dir);
    }
    this.points.cut(seg.base, target);
  }

  /**
   * Waits for running fsyncs, fsyncs log and time index, writes the checkpoint and `.clean-shutdown`, closes. A
   * fenced log only closes its files: no fsync can vouch for it now, so the next open recovers it as after a crash.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.durability.close();
      if (this.fenced) return;
      this.active.syncAllSync();
      this.points.writeCheckpoint(this.active.end);
      this.points.closed(this.active.base, this.active.end);
      writeCleanShutdownMarker(this.dir);
    } finally {
      // A fenced log, or a failed final sync (ENOSPC), still closes every file: the next open's recovery decides
      // what survived.
      await Promise.all(this.segments.map((seg) => seg.close()));
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private flush(seg: Segment, from: number, to: number): void {
    if (to > from) seg.write(this.scratch, from, to - from);
    seg.index.flushSome();
  }

  /** Rolls to a new segment at the active one's end: fsync, checkpoint, create, directory fsync. */
  private roll(): Segment {
    const old = this.active;
    try {
      old.syncAllSync();
    } catch (err) {
      this.rollFence ??= new LogFencedError('fsync at a segment roll failed: the log is fenced until it is reopened', {
        cause: err,
      });
      throw this.rollFence;
    }
    this.durability.rolled(old.end);
    this.points.writeCheckpoint(old.end);
    const seg = Segment.create(this.dir, old.end, this.now());
    fsyncDirSync(this.dir);
    this.segments.push(seg);
    this.rollCount++;
    return seg;
  }

  /** After a failed write, a physical end that differs from the tracked size is cut back, then forces a roll. */
  private repairTornTail(): void {
    if (!this.tailSuspect) return;
    const seg = this.active;
    if (seg.physicalSize() !== seg.size) {
      seg.truncate(seg.size);
      if (seg.size > 0) this.roll();
    }
    this.tailSuspect = false;
  }
}
