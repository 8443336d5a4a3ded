/**
 * The durability side of a SegmentedLog: which appends an fsync has covered, where the durable end is (the read
 * ceiling under acks=leader), the partition's group commit, and crater's recovery point. The log tells it what
 * happened (`wrote`, `rolled`, `cut`); it runs the fsyncs. Split out of segmented-log.ts, which keeps appends,
 * reads, rolls and truncation.
 *
 * The durable end only ever moves up to a settled fsync claim (fsync-claims.ts), so a `cut` during a running fsync
 * keeps that fsync from vouching for bytes rewritten after it started.
 */
import type { LogFencedError } from '../errors.js';
import { FsyncClaims } from './fsync-claims.js';
import { GroupCommitter, type GroupCommitterOptions } from './group-committer.js';
import type { RecoveryPointTracker } from './recovery-point.js';
import type { Segment } from './segment.js';

const SETTLED: Promise<void> = Promise.resolve();

export class SegmentedDurability {
  private writeSeq = 0;
  private durableSeq = 0;
  /** The global offset below which every byte was covered by a completed fsync (or found by recovery at open). */
  private end: number;
  private readonly claims = new FsyncClaims<number>();
  private readonly committer: GroupCommitter;

  constructor(
    private readonly active: () => Segment,
    private readonly points: RecoveryPointTracker,
    durableEnd: number,
    groupCommit: GroupCommitterOptions | undefined,
  ) {
    this.end = durableEnd;
    this.committer = new GroupCommitter(() => this.fsyncActive(), groupCommit);
  }

  /** The durable end, at most the log end `leo`. */
  durableEnd(leo: number): number {
    return Math.min(this.end, leo);
  }

  /** Set once a `sync()` fsync failed. */
  get fenced(): LogFencedError | undefined {
    return this.committer.fenced;
  }

  get fsyncCount(): number {
    return this.committer.fsyncCount;
  }

  /** Something was written or cut since the last fsync started. */
  wrote(): void {
    this.writeSeq++;
  }

  /** A roll fsynced the old segment, whose end is `end`, before creating the next. */
  rolled(end: number): void {
    this.end = end;
  }

  /** The log was cut back to `target`: nothing past it is durable, and no running fsync vouches for it. */
  cut(target: number): void {
    if (this.end > target) this.end = target;
    this.claims.cut(target);
    this.writeSeq++;
  }

  /**
   * Makes every append so far durable, sharing the fsync with concurrent callers: the committer's promise itself,
   * with no async wrapper (one promise per call on a path that runs once per touched partition per batch).
   */
  sync(): Promise<void> {
    if (this.durableSeq === this.writeSeq) return SETTLED;
    return this.committer.request();
  }

  /** Waits for running fsyncs; later `sync()` calls are refused. */
  close(): Promise<void> {
    return this.committer.close();
  }

  private fsyncActive(): Promise<void> {
    const seq = this.writeSeq;
    const seg = this.active();
    const claim = this.claims.begin(seg.end);
    const mark = this.points.mark();
    return seg.syncLog().then(
      () => {
        this.claims.settle(claim);
        if (seq > this.durableSeq) this.durableSeq = seq;
        // A truncation while the fsync ran cut the claim back: what was rewritten past the cut is not covered.
        if (claim.end > this.end) this.end = claim.end;
        this.points.synced(mark, seg.base, claim.end, this.active().base);
      },
      (err: unknown) => {
        this.claims.settle(claim);
        throw err;
      },
    );
  }
}
