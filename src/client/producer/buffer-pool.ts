/**
 * Bounded admission (seed 001): every record waiting in the client, queued or in flight, holds its bytes (and one
 * slot of the optional record cap) until it settles. A send that finds no room fails at once ('reject') or waits
 * in FIFO order up to maxBlockMs ('block'); either way it ends in a BufferExhaustedError and nothing was sent.
 *
 * JavaScript cannot block the caller, so a loop that does not await would queue waiters without bound: the sends
 * waiting for room may together hold at most a quarter of the buffer more; past that they fail at once as well.
 */
import { BufferExhaustedError } from '../../errors.js';
import type { ProducerClock } from './clock.js';

interface Waiter {
  bytes: number;
  since: number;
  timer: unknown;
  resolve(): void;
  reject(error: Error): void;
}

export class BufferPool {
  private usedBytes = 0;
  private usedRecords = 0;
  private waitingBytes = 0;
  private readonly waiters: Waiter[] = [];
  /** Sends refused for want of room (Kafka's buffer-exhausted-total). */
  exhausted = 0;

  constructor(
    readonly totalBytes: number,
    private readonly maxRecords: number,
    private readonly mode: 'block' | 'reject',
    private readonly maxBlockMs: number,
    private readonly clock: ProducerClock,
  ) {}

  get availableBytes(): number {
    return this.totalBytes - this.usedBytes;
  }

  get records(): number {
    return this.usedRecords;
  }

  /** True when `bytes` were taken at once; false when the caller must await `wait(bytes)`. */
  tryReserve(bytes: number): boolean {
    if (this.waiters.length > 0 || !this.fits(bytes)) return false;
    this.take(bytes);
    return true;
  }

  /** Waits for room (block mode) or fails at once (reject mode, or too many waiting already). */
  wait(bytes: number): Promise<void> {
    if (this.mode === 'reject' || this.maxBlockMs === 0) return Promise.reject(this.refusal('reject', bytes, 0));
    if (this.waiters.length > 0 && this.waitingBytes + bytes > this.totalBytes / 4) {
      return Promise.reject(
        this.refusal('block', bytes, 0, 'sends already waiting for room hold a quarter of the buffer'),
      );
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { bytes, since: this.clock.now(), timer: undefined, resolve, reject };
      waiter.timer = this.clock.setTimer(() => this.expire(waiter), this.maxBlockMs);
      this.waiters.push(waiter);
      this.waitingBytes += bytes;
    });
  }

  release(bytes: number, records: number): void {
    this.usedBytes -= bytes;
    this.usedRecords -= records;
    while (this.waiters.length > 0 && this.fits(this.waiters[0]!.bytes)) {
      const w = this.waiters.shift()!;
      this.waitingBytes -= w.bytes;
      this.clock.clearTimer(w.timer);
      this.take(w.bytes);
      w.resolve();
    }
  }

  /** Fails every waiter (the producer is closing). */
  rejectWaiters(error: Error): void {
    for (const w of this.waiters.splice(0)) {
      this.clock.clearTimer(w.timer);
      w.reject(error);
    }
    this.waitingBytes = 0;
  }

  private fits(bytes: number): boolean {
    // An empty buffer always admits one record, so a record larger than the buffer is not refused forever.
    if (this.usedRecords === 0) return true;
    return this.usedBytes + bytes <= this.totalBytes && this.usedRecords < this.maxRecords;
  }

  private take(bytes: number): void {
    this.usedBytes += bytes;
    this.usedRecords += 1;
  }

  private expire(waiter: Waiter): void {
    const i = this.waiters.indexOf(waiter);
    if (i < 0) return;
    this.waiters.splice(i, 1);
    this.waitingBytes -= waiter.bytes;
    waiter.reject(this.refusal('block', waiter.bytes, this.clock.now() - waiter.since));
  }

  private refusal(mode: 'block' | 'reject', bytes: number, waitedMs: number, why?: string): BufferExhaustedError {
    this.exhausted += 1;
    const used = `${this.usedBytes} of ${this.totalBytes} bytes and ${this.usedRecords} records in use`;
    const reason =
      why ??
      (mode === 'reject' ? `${used}, onBufferFull is 'reject'` : `${used} after waiting ${Math.round(waitedMs)} ms`);
    return new BufferExhaustedError(mode, bytes, this.totalBytes, waitedMs, reason);
  }
}
