/**
 * The accumulator flags of `crater produce` (seed 001) and the producer they configure: --linger, --batch-bytes,
 * --buffer-bytes, --max-in-flight, --delivery-timeout, --stats; `--batch N` (a flag of the command) caps records per
 * batch. The rule deliveryTimeout ≥ linger + timeout is the library's, refused as a usage error.
 */
import { Flags } from '@oclif/core';
import { type AccumulatorOptions, type ProducerMetrics, resolveAccumulatorOptions } from '../client/index.js';
import { Limits } from '../protocol/limits.js';
import { UsageError } from '../errors.js';
import { parseTimeoutMs } from './flags.js';

const SIZE = /^(\d+)\s*(b|k|kb|kib|m|mb|mib)?$/i;
const SIZE_UNIT: Record<string, number> = {
  b: 1,
  k: 1_024,
  kb: 1_000,
  kib: 1_024,
  m: 1_048_576,
  mb: 1_000_000,
  mib: 1_048_576,
};

/** "65536", "64KiB" / "64k" (×1,024), "64kB" (×1,000), "32MiB" / "32m", "32MB". */
export function parseByteSize(input: string): number {
  const match = SIZE.exec(input.trim());
  if (!match) throw new UsageError(`invalid size "${input}": expected bytes, or a number with KiB, MiB, kB or MB`);
  const bytes = Number(match[1]) * SIZE_UNIT[(match[2] ?? 'b').toLowerCase()]!;
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw new UsageError(`invalid size "${input}"`);
  return bytes;
}

/** A duration that may be 0 (--linger 0 sends on the next tick). */
export function parseLingerMs(input: string): number {
  return /^0+(\.0+)?\s*(ms|s|m)?$/.test(input.trim()) ? 0 : parseTimeoutMs(input);
}

const size = Flags.custom<number>({ parse: async (input) => parseByteSize(input), helpValue: 'BYTES' });
const duration = Flags.custom<number>({ parse: async (input) => parseTimeoutMs(input), helpValue: 'TIME' });

export function producerTuningFlags() {
  return {
    linger: Flags.custom<number>({ parse: async (input) => parseLingerMs(input), helpValue: 'TIME' })({
      description: 'How long a batch waits for more records (ms, or with s / m; 0: next tick). [default: 5ms]',
    }),
    'batch-bytes': size({
      description: 'Send a batch once its frame reaches this size (KiB / MiB accepted). [default: --max-frame-size]',
    }),
    'buffer-bytes': size({
      description: 'Bytes of records waiting in the client; reading input pauses when full. [default: 32MiB]',
    }),
    'max-in-flight': Flags.integer({
      description: 'Requests outstanding at once (an idempotent producer: one per topic). [default: 5]',
      min: 1,
      max: 1_024,
    }),
    'delivery-timeout': duration({
      description:
        'Budget per record from read to outcome: linger, requests, retries; at least linger + --timeout. [default: 120s]',
    }),
    stats: Flags.boolean({ description: "Print the producer's metrics (Kafka's names) on stderr at the end." }),
  };
}

export interface TuningFlags {
  linger?: number | undefined;
  'batch-bytes'?: number | undefined;
  'buffer-bytes'?: number | undefined;
  'max-in-flight'?: number | undefined;
  'delivery-timeout'?: number | undefined;
  batch?: number | undefined;
  timeout: number;
}

/**
 * Batches' worth of records read ahead of the requests in flight: one filling, one sealed and waiting for a slot.
 * Reading further ahead only keeps records waiting in memory (and the collector copying them: with --batch 1000 the
 * 32 MiB buffer held 79,000 records, and `crater produce` spent twice the CPU), without making the requests go faster.
 */
const READ_AHEAD_BATCHES = 2;

/**
 * The accumulator options the flags ask for (the command adds codec and frame size), checked here, before anything
 * connects: a refused combination is a usage error that opened no socket. An idempotent producer caps --batch at
 * 1,024, its protocol limit. Besides --buffer-bytes, the records waiting are capped at (--max-in-flight + 2) × --batch.
 */
export function tuningOptions(
  flags: TuningFlags,
  producer: { idempotent: boolean; maxFrameBytes: number },
): AccumulatorOptions {
  const batch =
    producer.idempotent && flags.batch !== undefined
      ? Math.min(flags.batch, Limits.idempotentBatchRecords)
      : flags.batch;
  const options: AccumulatorOptions = {
    lingerMs: flags.linger,
    batchBytes: flags['batch-bytes'],
    bufferBytes: flags['buffer-bytes'],
    maxInFlight: flags['max-in-flight'],
    deliveryTimeoutMs: flags['delivery-timeout'],
    requestTimeoutMs: flags.timeout,
    maxBatchRecords: batch,
  };
  const resolved = resolveAccumulatorOptions(options, producer);
  options.bufferRecords = (resolved.maxInFlight + READ_AHEAD_BATCHES) * resolved.maxBatchRecords;
  return options;
}

/** --stats: one `name value` line per metric, or one JSON object when the command prints JSON. */
export function renderProducerStats(metrics: ProducerMetrics, json: boolean): string {
  if (json) return JSON.stringify(metrics);
  const width = Math.max(...Object.keys(metrics).map((k) => k.length));
  return Object.entries(metrics as unknown as Record<string, number>)
    .map(([name, value]) => `${name.padEnd(width)}  ${Number.isInteger(value) ? value : value.toFixed(3)}`)
    .join('\n');
}
