import { describe, expect, it } from 'vitest';
import type { BatchConsumerEvent, Client } from '../../src/client/index.js';
import { ManualClock, until } from '../helpers/sleep-clock.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker({ topics: [{ name: 'scans', partitions: 1 }] });

const fill = (c: Client, n: number) =>
  c.produceBatch(
    'scans',
    Array.from({ length: n }, (_, i) => ({ value: `v${i}` })),
  );

class ClockWithLog extends ManualClock {
  readonly events: BatchConsumerEvent[] = [];
  readonly log = (e: BatchConsumerEvent): void => {
    this.events.push(e);
  };
  count(type: BatchConsumerEvent['type']): number {
    return this.events.filter((e) => e.type === type).length;
  }
}

describe('batch consumer: rate limit', () => {
  it('takes one permit per message: a second full batch waits for the bucket to refill', async () => {
    await env.start();
    const c = await env.client();
    await fill(c, 20);
    const clock = new ClockWithLog();
    const sizes: number[] = [];
    const bc = c.batchConsumer({
      group: 'g',
      topics: 'scans',
      maxSize: 10,
      rateLimit: { permitsPerSecond: 10, burst: 10 },
      clock,
      onEvent: clock.log,
    });
    const run = bc.run((b) => {
      sizes.push(b.count);
    });
    const limited = await until(() => clock.events.find((e) => e.type === 'rate-limited'), 'the rate limit');
    expect(limited).toEqual({ type: 'rate-limited', worker: 0, permits: 10, waitMs: 1_000 });
    expect(sizes).toEqual([10]);
    await until(() => clock.sleeping(1_000), 'the refill wait');
    clock.advance(999);
    expect(sizes).toEqual([10]);
    clock.advance(1);
    await until(() => sizes.length === 2, 'the second batch');
    await bc.stop();
    await run;
    expect(sizes).toEqual([10, 10]);
  });
});

describe('batch consumer: circuit breaker', () => {
  it('opens after the threshold of failed invocations, pauses, then one half-open batch closes it', async () => {
    await env.start();
    const c = await env.client();
    await fill(c, 5);
    const clock = new ClockWithLog();
    let calls = 0;
    const bc = c.batchConsumer({
      group: 'g',
      topics: 'scans',
      maxSize: 5,
      retry: { attempts: 5, backoff: { type: 'fixed', delayMs: 10 } },
      circuitBreaker: { failureThreshold: 2, samplingWindowMs: 30_000, pauseMs: 15_000 },
      clock,
      onEvent: clock.log,
    });
    const run = bc.run(() => {
      calls++;
      if (calls <= 2) throw new Error('downstream 503');
    });
    await until(() => clock.count('backoff') === 1, 'the first backoff');
    clock.advance(10);
    await until(() => clock.count('backoff') === 2, 'the second backoff');
    expect(clock.events.filter((e) => e.type === 'breaker')).toEqual([{ type: 'breaker', state: 'open' }]);
    clock.advance(10);
    await until(() => clock.sleeping(15_000 - 10), 'the pause');
    expect(calls).toBe(2);
    clock.advance(15_000 - 11);
    expect(calls).toBe(2);
    clock.advance(1);
    await until(() => bc.stats.processed === 5, 'the half-open batch');
    expect(calls).toBe(3);
    expect(clock.events.filter((e) => e.type === 'breaker').map((e) => (e as { state: string }).state)).toEqual([
      'open',
      'half-open',
      'closed',
    ]);
    await bc.stop();
    await run;
  });
});
