import { describe, expect, it } from 'vitest';
import { backoffDelay, validateBackoff } from '../../../../src/client/consumer/batch/backoff.js';
import { CircuitBreaker } from '../../../../src/client/consumer/batch/circuit-breaker.js';
import { TokenBucket } from '../../../../src/client/consumer/batch/rate-limiter.js';
import { PartitionWatermark } from '../../../../src/client/consumer/batch/watermark.js';
import type { BreakerState } from '../../../../src/client/consumer/batch/types.js';
import { ManualClock, until } from '../../../helpers/sleep-clock.js';

const never = new AbortController().signal;

describe('token bucket', () => {
  it('starts full at burst, takes one permit per message, and refills at permitsPerSecond', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket({ permitsPerSecond: 100, burst: 50 }, clock);
    expect(await bucket.acquire(50, never)).toBe(0);
    const waits: number[] = [];
    let got = false;
    const p = bucket
      .acquire(20, never, (w) => waits.push(w))
      .then((waited) => {
        got = true;
        return waited;
      });
    await until(() => clock.pending === 1, 'the wait');
    expect(waits).toEqual([200]);
    clock.advance(199);
    expect(got).toBe(false);
    clock.advance(1);
    expect(await p).toBe(200);
    expect(bucket.available()).toBe(0);
    clock.advance(10_000);
    expect(bucket.available()).toBe(50);
  });

  it('refuses a request larger than the burst, and a non-positive rate', async () => {
    const bucket = new TokenBucket({ permitsPerSecond: 1, burst: 5 }, new ManualClock());
    await expect(bucket.acquire(6, never)).rejects.toThrow(/exceed the burst of 5/);
    expect(() => new TokenBucket({ permitsPerSecond: 0, burst: 5 }, new ManualClock())).toThrow(
      /permitsPerSecond must be > 0/,
    );
  });
});

describe('circuit breaker', () => {
  it('opens at the threshold within the window, pauses, lets one trial batch through half-open, and closes on its success', async () => {
    const clock = new ManualClock();
    const states: BreakerState[] = [];
    const b = new CircuitBreaker({ failureThreshold: 2, samplingWindowMs: 1_000, pauseMs: 500 }, clock, (s) =>
      states.push(s),
    );
    b.failed(false);
    clock.advance(1_000);
    b.failed(false); // the first one fell out of the window
    expect(b.state).toBe('closed');
    b.failed(false);
    expect(b.state).toBe('open');
    let trial: boolean | undefined;
    let second: boolean | undefined;
    const a1 = b.acquire(never).then((t) => (trial = t));
    const a2 = b.acquire(never).then((t) => (second = t));
    await until(() => clock.pending === 2, 'both workers paused');
    clock.advance(499);
    expect(trial).toBeUndefined();
    clock.advance(1);
    await a1;
    expect(trial).toBe(true);
    expect(b.state).toBe('half-open');
    expect(second).toBeUndefined();
    b.succeeded(true);
    await a2;
    expect(second).toBe(false);
    expect(states).toEqual(['open', 'half-open', 'closed']);
  });

  it('a failed trial opens the circuit again for another pause', async () => {
    const clock = new ManualClock();
    const b = new CircuitBreaker({ failureThreshold: 1, samplingWindowMs: 1_000, pauseMs: 100 }, clock);
    b.failed(false);
    const a = b.acquire(never);
    await until(() => clock.pending === 1, 'the pause');
    clock.advance(100);
    expect(await a).toBe(true);
    b.failed(true);
    expect(b.state).toBe('open');
    let done = false;
    const again = b.acquire(never).then(() => (done = true));
    await until(() => clock.pending === 1, 'the second pause');
    clock.advance(99);
    expect(done).toBe(false);
    clock.advance(1);
    await again;
    expect(b.state).toBe('half-open');
  });
});

describe('backoff', () => {
  it('fixed is constant; exponential doubles up to maxMs and full jitter scales it by random()', () => {
    expect([1, 2, 5].map((n) => backoffDelay({ type: 'fixed', delayMs: 200 }, n, Math.random))).toEqual([
      200, 200, 200,
    ]);
    const exp = { type: 'exponential', initialMs: 200, maxMs: 1_000, jitter: false } as const;
    expect([1, 2, 3, 4].map((n) => backoffDelay(exp, n, Math.random))).toEqual([200, 400, 800, 1_000]);
    expect(backoffDelay({ ...exp, jitter: true }, 3, () => 0.5)).toBe(400);
    expect(() => validateBackoff({ type: 'exponential', initialMs: 500, maxMs: 100 })).toThrow(
      /maxMs must be >= initialMs/,
    );
  });
});

describe('partition watermark', () => {
  it('commits up to the first unfinished record, and past the last one when all are done', () => {
    const w = new PartitionWatermark();
    const entry = (offset: bigint, next: bigint | undefined) => w.add({ offset, next, done: false });
    const [a, b] = [entry(0n, 10n), entry(10n, 25n)];
    // The last record's successor is unknown until the broker's cursor says it.
    const c = entry(25n, undefined);
    expect(w.committable()).toBeUndefined();
    w.finish(b);
    expect(w.committable()).toBeUndefined();
    expect(w.committableWith(new Set([a]))).toBe(25n);
    w.finish(a);
    expect(w.committable()).toBe(25n);
    w.finish(c);
    expect(w.committable()).toBe(25n);
    w.resolveTail(31n);
    expect(w.committable()).toBe(31n);
    expect(w.outstanding).toBe(0);
    // A later record resolves the tail too.
    const d = entry(31n, undefined);
    entry(40n, undefined);
    w.finish(d);
    expect(w.committable()).toBe(40n);
  });
});
