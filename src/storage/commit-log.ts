/**
 * The commit-log backend (storage.md §8.2): offsets are message counts.
 *
 *   partition-<id>/%020d.log     records (storage.md §8), base = the segment's first offset
 *   partition-<id>/%020d.index   dense, one entry per record: u32 offset − base · u32 byte position (BE)
 *
 * The log is authoritative: on open every segment is CRC-scanned and truncated at the first bad or partial record,
 * and its index is rebuilt from what survives (commit-log-segments.ts). A segment rolls when its size is ≥ segmentBytes, checked before an
 * append, so a segment can overshoot. Compaction renumbers survivors from each segment's base, leaving gaps that
 * reads skip. sync() fsyncs at once, with no coalescing.
 */
import { CorruptDataError, LogFencedError, StorageError, UsageError } from '../errors.js';
import {
  INDEX_ENTRY_BYTES,
  type Segment,
  createSegment,
  indexBytes,
  recoverSegments,
  segmentFileName,
} from './commit-log-segments.js';
import { type CleanupPolicy, compactSegments, segmentsOverBudget } from './compaction.js';
import { fsyncAsync, readAtSync, storageFs as fs, writeAtSync } from './file-io.js';
import { FsyncClaims } from './fsync-claims.js';
import type { AppendResult, LogRecord, PartitionLog, ReadLimits } from './partition-log.js';
import { type RecordToStore, readRecord, recordSize, writeRecord } from './record.js';
import { scanRecords } from './record-scanner.js';

export { INDEX_ENTRY_BYTES, segmentFileName };

export const COMMIT_LOG_SEGMENT_BYTES = 64 * 1_048_576;
export const INTERNAL_SEGMENT_BYTES = 8 * 1_048_576;
export const COMMIT_LOG_MAX_SEGMENT_BYTES = 0xffffffff - 64 * 1_048_576;

export interface CommitLogOptions {
  /** Roll threshold; default 64 MiB (use INTERNAL_SEGMENT_BYTES for `__*` topics). */
  segmentBytes?: number;
  cleanupPolicy?: CleanupPolicy;
  /** Byte budget for the `delete` policy; 0 (the default) keeps everything. */
  maxLogBytes?: number;
}

export class CommitLog implements PartitionLog {
  readonly backend = 'commitlog' as const;
  readonly dir: string;
  readonly segmentBytes: number;
  readonly cleanupPolicy: CleanupPolicy;
  readonly maxLogBytes: number;
  private segments: Segment[] = [];
  private fsyncs = 0;
  private closed = false;
  private durableEnd = 0n;
  private readonly claims = new FsyncClaims<bigint>();
  private fencedBy: LogFencedError | undefined;
  /** fsyncs still running on the thread pool, and descriptors whose closing waits for them. */
  private inflight = 0;
  private retired: number[] = [];

  private constructor(dir: string, options: CommitLogOptions) {
    this.dir = dir;
    this.segmentBytes = options.segmentBytes ?? COMMIT_LOG_SEGMENT_BYTES;
    this.cleanupPolicy = options.cleanupPolicy ?? 'delete';
    this.maxLogBytes = options.maxLogBytes ?? 0;
    if (
      !Number.isInteger(this.segmentBytes) ||
      this.segmentBytes < 1 ||
      this.segmentBytes > COMMIT_LOG_MAX_SEGMENT_BYTES
    ) {
      throw new UsageError(`segmentBytes must be 1..${COMMIT_LOG_MAX_SEGMENT_BYTES}, got ${this.segmentBytes}`);
    }
  }

  /** Opens (creating when absent) the partition directory `dir`, running recovery first. */
  static open(dir: string, options: CommitLogOptions = {}): CommitLog {
    const log = new CommitLog(dir, options);
    try {
      ({ segments: log.segments, fsyncs: log.fsyncs } = recoverSegments(dir));
      log.durableEnd = log.logEndOffset;
    } catch (err) {
      throw err instanceof StorageError || err instanceof UsageError
        ? err
        : new StorageError(`cannot open commit log ${dir}: ${err instanceof Error ? err.message : String(err)}`, {
            cause: err,
          });
    }
    return log;
  }

  get logStartOffset(): bigint {
    return this.segments[0]!.base;
  }

  get logEndOffset(): bigint {
    const active = this.active;
    return active.base + BigInt(active.positions.length);
  }

  get fsyncCount(): number {
    return this.fsyncs;
  }

  get durableEndOffset(): bigint {
    return this.durableEnd < this.logEndOffset ? this.durableEnd : this.logEndOffset;
  }

  get fenced(): LogFencedError | undefined {
    return this.fencedBy;
  }

  /** Segment bases and record counts, oldest first (for tests and tooling). */
  get segmentInfo(): { base: bigint; records: number; bytes: number }[] {
    return this.segments.map((s) => ({ base: s.base, records: s.positions.length, bytes: s.size }));
  }

  private get active(): Segment {
    return this.segments[this.segments.length - 1]!;
  }

  append(records: readonly RecordToStore[]): AppendResult {
    this.assertOpen();
    if (this.fencedBy) return { offsets: [], error: this.fencedBy };
    const offsets: bigint[] = [];
    let i = 0;
    try {
      while (i < records.length) {
        if (this.active.size >= this.segmentBytes) this.roll();
        const seg = this.active;
        // One run per segment: the roll check repeats before each record, so a run ends where a roll is due.
        const sizes: number[] = [];
        let bytes = 0;
        for (let j = i; j < records.length && (j === i || seg.size + bytes < this.segmentBytes); j++) {
          const size = recordSize(records[j]!);
          sizes.push(size);
          bytes += size;
        }
        const buf = Buffer.allocUnsafe(bytes);
        let p = 0;
        const newPositions: number[] = [];
        for (const size of sizes) {
          writeRecord(buf, p, records[i + newPositions.length]!);
          newPositions.push(seg.size + p);
          p += size;
        }
        const first = seg.positions.length;
        writeAtSync(seg.fd!, buf, seg.size);
        writeAtSync(seg.indexFd!, indexBytes(newPositions, first), first * INDEX_ENTRY_BYTES);
        for (const pos of newPositions) seg.positions.push(pos);
        seg.size += bytes;
        for (let k = 0; k < newPositions.length; k++) offsets.push(seg.base + BigInt(first + k));
        i += newPositions.length;
      }
    } catch (err) {
      return { offsets, error: err instanceof Error ? err : new StorageError(String(err)) };
    }
    return { offsets };
  }

  /** Closes the active segment, starts a new one at the LEO, then applies the cleanup policy to closed segments. */
  private roll(): void {
    const old = this.active;
    fs.fsyncSync(old.fd!);
    this.fsyncs++;
    this.durableEnd = this.logEndOffset;
    fs.closeSync(old.indexFd!);
    old.indexFd = undefined;
    this.segments.push(createSegment(this.dir, this.logEndOffset));
    this.fsyncDir();
    this.cleanup();
  }

  private cleanup(): void {
    const closed = this.segments.slice(0, -1);
    if (this.cleanupPolicy === 'compact') {
      for (const seg of closed) this.closeSegment(seg);
      const stats = compactSegments(closed);
      this.fsyncs += stats.fsyncs;
      const kept: Segment[] = [];
      stats.outcomes.forEach((outcome, i) => {
        const seg = closed[i]!;
        if (outcome.kind === 'removed') return;
        if (outcome.kind === 'rewritten') {
          seg.size = outcome.size;
          seg.positions = outcome.positions;
        }
        kept.push(seg);
      });
      this.segments = [...kept, this.active];
      return;
    }
    const drop = segmentsOverBudget(
      this.segments.map((s) => s.size),
      this.maxLogBytes,
    );
    for (const seg of this.segments.slice(0, drop)) {
      this.closeSegment(seg);
      fs.rmSync(seg.logPath, { force: true });
      fs.rmSync(seg.indexPath, { force: true });
    }
    if (drop > 0) {
      this.segments = this.segments.slice(drop);
      this.fsyncDir();
    }
  }

  /** Forces the cleanup policy now (the broker runs it at every roll; tests and tools may want it on demand). */
  rollAndClean(): void {
    this.assertOpen();
    if (this.active.size > 0) this.roll();
    else this.cleanup();
  }

  /**
   * Cuts the log back so that `offset` (at or above the log start) becomes the LEO, deleting segments rolled past
   * it. The produce path uses it to take back records appended after a batch's failure point.
   */
  truncateTo(offset: bigint): void {
    this.assertOpen();
    if (offset >= this.logEndOffset) return;
    if (offset < this.logStartOffset) {
      throw new StorageError(`cannot truncate ${this.dir} to ${offset}: below the log start ${this.logStartOffset}`);
    }
    if (this.durableEnd > offset) this.durableEnd = offset;
    this.claims.cut(offset);
    let dropped = false;
    while (this.segments.length > 1 && this.active.base > offset) {
      const seg = this.segments.pop()!;
      this.closeSegment(seg);
      fs.rmSync(seg.logPath, { force: true });
      fs.rmSync(seg.indexPath, { force: true });
      dropped = true;
    }
    const seg = this.active;
    if (dropped) {
      // A closed segment's log may be open read-only; the new active one needs both files writable.
      this.closeSegment(seg);
      seg.fd = fs.openSync(seg.logPath, 'r+');
      seg.indexFd = fs.openSync(seg.indexPath, 'r+');
    }
    const keep = Math.min(Number(offset - seg.base), seg.positions.length);
    const size = seg.positions[keep] ?? seg.size;
    fs.ftruncateSync(seg.fd!, size);
    fs.ftruncateSync(seg.indexFd!, keep * INDEX_ENTRY_BYTES);
    seg.positions.length = keep;
    seg.size = size;
    if (dropped) this.fsyncDir();
  }

  /** fsyncs the active segment at once; a failure fences the log (see PartitionLog.fenced). */
  async sync(): Promise<void> {
    this.assertOpen();
    if (this.fencedBy) throw this.fencedBy;
    const claim = this.claims.begin(this.logEndOffset);
    try {
      await this.fsyncTracked(this.active.fd!);
    } catch (err) {
      this.fencedBy ??= new LogFencedError('fsync failed: the log is fenced until it is reopened', { cause: err });
      throw this.fencedBy;
    } finally {
      this.claims.settle(claim);
    }
    // A truncation while the fsync ran cut the claim back (fsync-claims.ts).
    if (claim.end > this.durableEnd) this.durableEnd = claim.end;
  }

  /** An async fsync whose descriptor cannot be closed (a roll, compaction or close) until it has finished. */
  private async fsyncTracked(fd: number): Promise<void> {
    this.inflight++;
    try {
      await fsyncAsync(fd);
      this.fsyncs++;
    } finally {
      this.inflight--;
      if (this.inflight === 0) for (const retired of this.retired.splice(0)) fs.closeSync(retired);
    }
  }

  read(offset: bigint, limits: ReadLimits): LogRecord[] {
    this.assertOpen();
    const out: LogRecord[] = [];
    const maxBytes = limits.maxBytes ?? Number.POSITIVE_INFINITY;
    let budget = maxBytes;
    let cursor = offset < this.logStartOffset ? this.logStartOffset : offset;
    let s = this.segmentIndexFor(cursor);
    while (s < this.segments.length && out.length < limits.maxRecords) {
      const seg = this.segments[s]!;
      if (cursor < seg.base) cursor = seg.base;
      const rel = Number(cursor - seg.base);
      if (rel >= seg.positions.length) {
        s++;
        continue;
      }
      let end = rel;
      let bytes = 0;
      while (end < seg.positions.length && out.length + (end - rel) < limits.maxRecords) {
        const size = (seg.positions[end + 1] ?? seg.size) - seg.positions[end]!;
        if (bytes + size > budget && (out.length > 0 || end > rel)) break;
        bytes += size;
        end++;
      }
      if (end === rel) break;
      const start = seg.positions[rel]!;
      const buf = Buffer.allocUnsafe(bytes);
      readAtSync(this.fdFor(seg), buf, start);
      for (let k = rel; k < end; k++) {
        const at = seg.positions[k]! - start;
        const result = readRecord(buf, at, at + ((seg.positions[k + 1] ?? seg.size) - seg.positions[k]!));
        if (!result.ok) throw new CorruptDataError(seg.logPath, seg.positions[k]!, result.detail);
        const off = seg.base + BigInt(k);
        out.push({ ...result.record, offset: off, nextOffset: off + 1n });
      }
      budget -= bytes;
      cursor = seg.base + BigInt(end);
      if (end < seg.positions.length) break;
      s++;
    }
    return out;
  }

  offsetForTimestamp(timestampMs: bigint): { offset: bigint; found: boolean } {
    this.assertOpen();
    for (const seg of this.segments) {
      let index = 0;
      for (const item of scanRecords(this.fdFor(seg), seg.size)) {
        if (!item.ok) break;
        if (item.record.timestamp >= timestampMs) return { offset: seg.base + BigInt(index), found: true };
        index++;
      }
    }
    return { offset: this.logEndOffset, found: false };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const active = this.active;
    try {
      if (active.fd !== undefined) await this.fsyncTracked(active.fd);
    } finally {
      this.closeHandles();
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Last segment whose base is ≤ offset (0 when the offset precedes them all). */
  private segmentIndexFor(offset: bigint): number {
    let lo = 0;
    let hi = this.segments.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.segments[mid]!.base <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private fdFor(seg: Segment): number {
    seg.fd ??= fs.openSync(seg.logPath, 'r');
    return seg.fd;
  }

  private closeSegment(seg: Segment): void {
    for (const fd of [seg.fd, seg.indexFd]) {
      if (fd === undefined) continue;
      if (this.inflight > 0) this.retired.push(fd);
      else fs.closeSync(fd);
    }
    seg.fd = undefined;
    seg.indexFd = undefined;
  }

  private closeHandles(): void {
    for (const seg of this.segments) this.closeSegment(seg);
  }

  private fsyncDir(): void {
    const fd = fs.openSync(this.dir, 'r');
    try {
      fs.fsyncSync(fd);
      this.fsyncs++;
    } finally {
      fs.closeSync(fd);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new StorageError(`commit log ${this.dir} is closed`);
  }
}
