/**
 * The untimed warm-up of `bench batch-vs-single` (batch-vs-single.ts): how many single produces and batch rounds run
 * before anything is timed, so both modes are timed at the JIT's steady state.
 */
import type { ProducerRecord } from '../client/moonmq/produce-ops.js';
import { UsageError } from '../errors.js';

/**
 * Untimed warm-up: this many single produces (the records over again as needed), then the timed batches several times
 * over, so the modes are timed at the JIT's steady state. With one 50-record batch as warm-up, the five timed batches
 * of 400 ran at about twice their warm time (they were the batch path's first calls); with 200 warm-up singles, the
 * single mode's first repeats ran much of the broker's and client's per-request code in V8's baseline tier: 2,000
 * more singles before timing halved the CPU per single produce on both sides (client 110-150 µs to 63-88, broker
 * 300-550 to 185-230) and brought the p50 from about 0.4 ms to the floor's 0.25-0.30 (session 8, load 1-5).
 */
export const WARMUP_SINGLES = 2_000;
/** Batch rounds of the warm-up: enough for about 8,000 records, at least 1 and at most 20. */
export const warmupBatchRounds = (records: number): number => Math.min(20, Math.max(1, Math.ceil(8_000 / records)));
/** The warm-up singles option checked (0..1,000,000) and defaulted. */
export function warmupCount(v: number | undefined): number {
  if (v === undefined) return WARMUP_SINGLES;
  if (!Number.isInteger(v) || v < 0 || v > 1_000_000)
    throw new UsageError(`warm-up singles must be 0..1000000, got ${v}`);
  return v;
}

/** `count` records for the warm-up: the bench's records over again (only ever produced, so repeats are harmless). */
export function warmupSingles(data: readonly ProducerRecord[], count: number): ProducerRecord[] {
  const out: ProducerRecord[] = [];
  for (let i = 0; i < count; i++) out.push(data[i % data.length]!);
  return out;
}
