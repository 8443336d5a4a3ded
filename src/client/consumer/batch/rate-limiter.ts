/**
 * Token bucket, one permit per message (seed 003): a batch of 50 takes 50 permits. The bucket starts full at
 * `burst` and refills at permitsPerSecond. A request larger than the bucket could never be served, which is why the
 * consumer refuses burst < maxSize at construction.
 */
import { UsageError } from '../../../errors.js';
import type { Clock } from './clock.js';
import type { RateLimitOptions } from './types.js';

export class TokenBucket {
  private tokens: number;
  private last: number;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: RateLimitOptions,
    private readonly clock: Clock,
  ) {
    const { permitsPerSecond, burst } = options;
    if (!(permitsPerSecond > 0) || !Number.isFinite(permitsPerSecond))
      throw new UsageError(`rate limit permitsPerSecond must be > 0, got ${permitsPerSecond}`);
    if (!Number.isInteger(burst) || burst < 1)
      throw new UsageError(`rate limit burst must be a positive integer, got ${burst}`);
    this.tokens = burst;
    this.last = clock.now();
  }

  /** Permits available now (refilled up to the clock). */
  available(): number {
    this.refill();
    return this.tokens;
  }

  /**
   * Takes `permits`, waiting for the refill when short; callers are served in arrival order. Resolves with the
   * time waited. `onWait` hears about a wait before it starts.
   */
  acquire(permits: number, signal: AbortSignal, onWait?: (waitMs: number) => void): Promise<number> {
    if (permits > this.options.burst)
      return Promise.reject(new UsageError(`${permits} permits exceed the burst of ${this.options.burst}`));
    const turn = this.queue.then(() => this.take(permits, signal, onWait));
    this.queue = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  private async take(permits: number, signal: AbortSignal, onWait?: (waitMs: number) => void): Promise<number> {
    let waited = 0;
    for (;;) {
      this.refill();
      if (this.tokens >= permits) {
        this.tokens -= permits;
        return waited;
      }
      const waitMs = Math.ceil(((permits - this.tokens) / this.options.permitsPerSecond) * 1000);
      onWait?.(waitMs);
      await this.clock.sleep(waitMs, signal);
      waited += waitMs;
    }
  }

  private refill(): void {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.last);
    this.last = now;
    this.tokens = Math.min(this.options.burst, this.tokens + (elapsed * this.options.permitsPerSecond) / 1000);
  }
}
