/**
 * A Clock that moves only when a test says so: sleep() registers a timer, advance() fires the ones that fell due,
 * in order. Nothing real waits, so accumulation timeouts, backoff, rate limits and breaker pauses are tested
 * without sleeping.
 */
import type { Clock } from '../../src/client/consumer/batch/clock.js';
import { until as pollUntil } from './eventually.js';

interface Timer {
  at: number;
  ms: number;
  resolve: () => void;
}

export class ManualClock implements Clock {
  private t = 0;
  private timers: Timer[] = [];

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const timer: Timer = {
        at: this.t + ms,
        ms,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.timers = this.timers.filter((x) => x !== timer);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.timers.push(timer);
    });
  }

  /** Timers waiting now. */
  get pending(): number {
    return this.timers.length;
  }

  /** True when someone is sleeping for exactly `ms` (as asked, not what is left). */
  sleeping(ms: number): boolean {
    return this.timers.some((x) => x.ms === ms);
  }

  /** Moves time forward by `ms`, firing each due timer (earliest first). */
  advance(ms: number): void {
    this.t += ms;
    const due = this.timers.filter((x) => x.at <= this.t).sort((a, b) => a.at - b.at);
    this.timers = this.timers.filter((x) => x.at > this.t);
    for (const x of due) x.resolve();
  }
}

/** `until` of eventually.ts (the one poll loop) for checks that answer false or undefined while not yet met. */
export function until<T>(check: () => T | undefined | false, what: string, timeoutMs = 10_000): Promise<T> {
  return pollUntil(
    () => {
      const v = check();
      return v === false ? undefined : v;
    },
    { what: `timed out waiting for ${what}`, timeoutMs, intervalMs: 5 },
  );
}
