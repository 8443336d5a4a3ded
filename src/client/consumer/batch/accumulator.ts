/**
 * One worker's channel and its two-phase accumulation (seed 003): (1) block until at least one record is there,
 * using no CPU; (2) drain what is immediately available; at maxSize dispatch at once; otherwise wait up to
 * timeoutMs after the batch's first record for more, draining whenever more arrive, and dispatch what has
 * accumulated when the time is up.
 */
import type { Clock } from './clock.js';

export class WorkerChannel<E> {
  private queue: E[] = [];
  private head = 0;
  private wake: (() => void) | undefined;
  private closed = false;

  get size(): number {
    return this.queue.length - this.head;
  }

  /** Queues one record without waking the worker: notify() once the run is queued. */
  enqueue(record: E): void {
    this.queue.push(record);
  }

  /** Wakes a waiting worker when records are queued. */
  notify(): void {
    if (this.size > 0) this.signal();
  }

  /** Ends accumulation: a waiting worker returns what it holds (or nothing) at once. */
  close(): void {
    this.closed = true;
    this.signal();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Takes up to `max` queued records. */
  drain(max: number, into: E[]): void {
    const n = Math.min(max, this.size);
    for (let i = 0; i < n; i++) into.push(this.queue[this.head + i]!);
    this.head += n;
    this.compact();
  }

  /** Takes up to `max` queued records as a new array (one copy of the exact size). */
  take(max: number): E[] {
    const n = Math.min(max, this.size);
    const out = this.queue.slice(this.head, this.head + n);
    this.head += n;
    this.compact();
    return out;
  }

  private compact(): void {
    if (this.head > 4096 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }

  /** Resolves when a record is queued or the channel closes. */
  available(): Promise<void> {
    if (this.size > 0 || this.closed) return Promise.resolve();
    return new Promise((resolve) => (this.wake = resolve));
  }

  private signal(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }
}

export interface AccumulateOptions {
  maxSize: number;
  timeoutMs: number;
  clock: Clock;
  /** Told before each timed wait (how many records are held, how long it will wait at most). */
  onWait?: (size: number, waitMs: number) => void;
}

/** The next batch; empty only when the channel closed with nothing queued. */
export async function nextBatch<E>(channel: WorkerChannel<E>, o: AccumulateOptions): Promise<E[]> {
  await channel.available();
  const batch = channel.take(o.maxSize);
  if (batch.length === 0) return batch;
  const deadline = o.clock.now() + o.timeoutMs;
  while (batch.length < o.maxSize && !channel.isClosed) {
    const left = deadline - o.clock.now();
    if (left <= 0) break;
    o.onWait?.(batch.length, left);
    const timer = new AbortController();
    const timedOut = o.clock.sleep(left, timer.signal).then(
      () => true,
      () => false,
    );
    const expired = await Promise.race([channel.available().then(() => false), timedOut]);
    timer.abort();
    channel.drain(o.maxSize - batch.length, batch);
    if (expired) break;
  }
  return batch;
}
