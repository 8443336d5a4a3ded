/**
 * Per-partition group commit: callers that want their appends durable share fsyncs.
 *
 * Two policies:
 *   linger  MoonMQ's (storage.md §8.1): the first waiter starts a `lingerMs` timer (2 ms); when it fires one fsync
 *           wakes every waiter; the `maxWaiters`th waiter (64) fires it at once.
 *   eager   an fsync starts at once when none is running; everyone who arrives while it runs waits for the next
 *           one, which starts as soon as the running one ends and covers all of them.
 *
 * A waiter is only released by an fsync that started after it arrived, so its writes (made before it called
 * `request`) are covered.
 *
 * A failed fsync fences the committer for good: its waiters, everyone already waiting for the next fsync and every
 * later request are rejected with a LogFencedError whose cause is the failure. After a failed fsync Linux may have
 * dropped the dirty pages and a later fsync can succeed without writing them, so "the next fsync worked" proves
 * nothing about earlier writes (the PostgreSQL fsync lesson); only reopening the log, whose recovery re-reads the
 * files, can say what survived. Eager is the default: it never adds idle latency for a lone sequential producer, and
 * under concurrency it coalesces as well as linger does (see the storage bench's group-commit figures).
 */
import { LogFencedError, StorageError } from '../errors.js';

export type GroupCommitPolicy = 'eager' | 'linger';

export const DEFAULT_GROUP_COMMIT_POLICY: GroupCommitPolicy = 'eager';
export const DEFAULT_LINGER_MS = 2;
export const DEFAULT_MAX_WAITERS = 64;

export interface GroupCommitterOptions {
  policy?: GroupCommitPolicy;
  lingerMs?: number;
  maxWaiters?: number;
}

interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
}

export class GroupCommitter {
  readonly policy: GroupCommitPolicy;
  readonly lingerMs: number;
  readonly maxWaiters: number;
  /** fsyncs started so far. */
  fsyncCount = 0;
  private readonly fsync: () => Promise<void>;
  private waiting: Waiter[] = [];
  private running = 0;
  private timer: NodeJS.Timeout | undefined;
  private idle: Array<() => void> = [];
  private closed = false;
  private fencedBy: LogFencedError | undefined;

  constructor(fsync: () => Promise<void>, options: GroupCommitterOptions = {}) {
    this.fsync = fsync;
    this.policy = options.policy ?? DEFAULT_GROUP_COMMIT_POLICY;
    this.lingerMs = options.lingerMs ?? DEFAULT_LINGER_MS;
    this.maxWaiters = options.maxWaiters ?? DEFAULT_MAX_WAITERS;
  }

  /** The error every request gets since an fsync failed; undefined while none has. */
  get fenced(): LogFencedError | undefined {
    return this.fencedBy;
  }

  /** Resolves after an fsync that started after this call has completed; rejects if that or any earlier fsync failed. */
  request(): Promise<void> {
    if (this.fencedBy) return Promise.reject(this.fencedBy);
    if (this.closed) return Promise.reject(new StorageError('the log is closed'));
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (this.policy === 'eager') {
        if (this.running === 0) this.fire();
      } else if (this.waiting.length >= this.maxWaiters) {
        this.fire();
      } else if (this.waiting.length === 1) {
        this.timer = setTimeout(() => this.fire(), this.lingerMs);
      }
    });
  }

  /** Resolves once every requested fsync has completed; later requests are refused. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.waiting.length > 0) this.fire();
    if (this.running > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private fire(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0) return;
    this.running++;
    this.fsyncCount++;
    let started: Promise<void>;
    try {
      started = this.fsync();
    } catch (err) {
      started = Promise.reject(err);
    }
    // One reaction per fsync (not a catch and a finally): a batch over 64 partitions runs this 64 times.
    started.then(
      () => this.settle(batch, undefined),
      (err: unknown) => {
        this.fencedBy ??= new LogFencedError('fsync failed: the log is fenced until it is reopened', { cause: err });
        this.settle(batch, this.fencedBy);
      },
    );
  }

  /** An fsync ended: releases the waiters it covered, starts the next (eager) or wakes close() when idle. */
  private settle(batch: readonly Waiter[], failure: Error | undefined): void {
    this.running--;
    for (const w of batch) {
      if (failure) w.reject(failure);
      else w.resolve();
    }
    if (this.fencedBy) this.rejectWaiting(this.fencedBy);
    if (this.policy === 'eager' && this.waiting.length > 0) this.fire();
    if (this.running === 0 && this.waiting.length === 0 && this.idle.length > 0) {
      const idle = this.idle;
      this.idle = [];
      for (const resolve of idle) resolve();
    }
  }

  private rejectWaiting(err: LogFencedError): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) w.reject(err);
  }
}
