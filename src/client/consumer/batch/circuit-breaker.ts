/**
 * Circuit breaker over batch invocations (seed 003: one failed batch counts one). Closed: failures are timestamped
 * and those older than the sampling window forgotten; at the threshold it opens and every worker waits out the
 * pause. Then it is half-open: exactly one batch runs; its success closes the circuit, its failure opens it again.
 *
 *   state      event                      next
 *   closed     failure, count >= limit    open
 *   open       pause elapsed              half-open (first acquire becomes the trial)
 *   half-open  trial succeeded            closed
 *   half-open  trial failed               open
 */
import { UsageError } from '../../../errors.js';
import type { Clock } from './clock.js';
import type { BreakerState, CircuitBreakerOptions } from './types.js';

export class CircuitBreaker {
  private current: BreakerState = 'closed';
  private failures: number[] = [];
  private openUntil = 0;
  private trialRunning = false;
  private waiters: Array<() => void> = [];

  constructor(
    private readonly options: CircuitBreakerOptions,
    private readonly clock: Clock,
    private readonly onChange: (state: BreakerState) => void = () => {},
  ) {
    const { failureThreshold, samplingWindowMs, pauseMs } = options;
    if (!Number.isInteger(failureThreshold) || failureThreshold < 1)
      throw new UsageError(`breaker failureThreshold must be a positive integer, got ${failureThreshold}`);
    if (!(samplingWindowMs > 0)) throw new UsageError(`breaker samplingWindowMs must be > 0, got ${samplingWindowMs}`);
    if (!(pauseMs > 0)) throw new UsageError(`breaker pauseMs must be > 0, got ${pauseMs}`);
  }

  get state(): BreakerState {
    return this.current;
  }

  /** Waits until this invocation may run. Resolves true when it is the half-open trial (report its result). */
  async acquire(signal: AbortSignal): Promise<boolean> {
    for (;;) {
      signal.throwIfAborted();
      if (this.current === 'closed') return false;
      if (this.current === 'open') {
        const left = this.openUntil - this.clock.now();
        if (left > 0) {
          await this.clock.sleep(left, signal);
          continue;
        }
        this.set('half-open');
      }
      if (!this.trialRunning) {
        this.trialRunning = true;
        return true;
      }
      await new Promise<void>((resolve, reject) => {
        const onAbort = (): void => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        this.waiters.push(() => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        });
      });
    }
  }

  succeeded(trial: boolean): void {
    if (!trial) return;
    this.trialRunning = false;
    this.failures = [];
    this.set('closed');
    this.wake();
  }

  failed(trial: boolean): void {
    const now = this.clock.now();
    if (trial) {
      this.trialRunning = false;
      this.open(now);
      this.wake();
      return;
    }
    if (this.current !== 'closed') return;
    this.failures = this.failures.filter((t) => now - t < this.options.samplingWindowMs);
    this.failures.push(now);
    if (this.failures.length >= this.options.failureThreshold) this.open(now);
  }

  private open(now: number): void {
    this.openUntil = now + this.options.pauseMs;
    this.failures = [];
    this.set('open');
  }

  private set(state: BreakerState): void {
    if (state === this.current) return;
    this.current = state;
    this.onChange(state);
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}
