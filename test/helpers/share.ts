/** Share-group test helpers: a controllable broker clock, polling to a deadline, and draining share consumers. */
import type { Client } from '../../src/client/client.js';
import type { ShareConsumer, ShareConsumerRecord } from '../../src/client/moonmq/share-consumer.js';
import { until } from './eventually.js';

/** A broker clock the test moves by hand (lock deadlines and member sessions run on it). */
export function manualClock(start = 1_700_000_000_000n): { now: () => bigint; advance(ms: number): void } {
  let t = start;
  return {
    now: () => t,
    advance(ms: number) {
      t += BigInt(ms);
    },
  };
}

/** Retries `fn` until it returns a value (not undefined) or the deadline passes. */
export function eventually<T>(fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  return until(fn, { timeoutMs });
}

export const fill = (c: Client, topic: string, n: number, prefix = 'v') =>
  c.produceBatch(
    topic,
    Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `${prefix}${i}` })),
  );

export const valueOf = (r: ShareConsumerRecord): string => r.value.toString();

/**
 * Polls `consumer` until at least `want` records arrived, and returns them in arrival order; throws past the
 * deadline, saying how many had arrived. Each poll waits up to the consumer's maxWaitMs itself, so there is no
 * pause between polls.
 */
export function pollUntil(consumer: ShareConsumer, want: number, timeoutMs = 10_000): Promise<ShareConsumerRecord[]> {
  const got: ShareConsumerRecord[] = [];
  return until(
    async () => {
      got.push(...(await consumer.poll()));
      return got.length >= want ? got : undefined;
    },
    { timeoutMs, intervalMs: 0, what: () => `${want} share records (${got.length} arrived)` },
  );
}
