/**
 * The accumulator's settings (seed 001, Kafka 4.0's names in camelCase), their defaults and the checks done at
 * construction, so a producer that could never meet its own deadline is refused before it sends anything.
 */
import { UsageError } from '../../errors.js';
import { DEFAULT_MAX_FRAME_SIZE, Limits } from '../../protocol/limits.js';
import { isOneOf } from '../validate.js';
import { type ProducerClock, systemClock } from './clock.js';

export type OnBufferFull = 'block' | 'reject';

/** A request's timeout when neither the options nor the sink give one (the MoonMQ connection's default too). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export interface AccumulatorOptions {
  /** A batch is sent once its PRODUCE_BATCH frame would pass this many bytes (default: maxFrameBytes). */
  batchBytes?: number | undefined;
  /** Records per batch (default 10,000; 1,024 when idempotent). */
  maxBatchRecords?: number | undefined;
  /** How long an open batch waits for more records (default 5 ms, as in Kafka 4.0); 0 sends on the next tick. */
  lingerMs?: number | undefined;
  /** Requests outstanding at once (default 5). */
  maxInFlight?: number | undefined;
  /** Bytes of records waiting in the client, queued or in flight (default 32 MiB). */
  bufferBytes?: number | undefined;
  /** Optional cap on the records waiting in the client. */
  bufferRecords?: number | undefined;
  /** When the buffer is full: wait up to maxBlockMs for room (default), or fail the send at once. */
  onBufferFull?: OnBufferFull | undefined;
  maxBlockMs?: number | undefined;
  /** The whole budget of a record, from send() to its outcome: linger, requests and retries (default 120 s). */
  deliveryTimeoutMs?: number | undefined;
  /** Deadline of one request (default 30 s); deliveryTimeoutMs must be at least lingerMs + requestTimeoutMs. */
  requestTimeoutMs?: number | undefined;
  clock?: ProducerClock | undefined;
  /** Source of the retry jitter, in [0, 1). */
  random?: (() => number) | undefined;
}

export interface ResolvedAccumulatorOptions {
  batchBytes: number;
  maxBatchRecords: number;
  lingerMs: number;
  maxInFlight: number;
  bufferBytes: number;
  bufferRecords: number;
  onBufferFull: OnBufferFull;
  maxBlockMs: number;
  deliveryTimeoutMs: number;
  requestTimeoutMs: number;
  /** requestTimeoutMs was given: every request carries it (else only a deadline shorter than it is passed on). */
  requestTimeoutGiven: boolean;
  maxFrameBytes: number;
  clock: ProducerClock;
  random: () => number;
}

export const AccumulatorDefaults = {
  lingerMs: 5,
  maxInFlight: 5,
  bufferBytes: 32 * 1_048_576,
  maxBlockMs: 60_000,
  deliveryTimeoutMs: 120_000,
  onBufferFull: 'block',
} as const;

function count(
  name: string,
  v: number | undefined,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const value = v ?? fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`${name} must be an integer ${min}..${max}, got ${value}`);
  }
  return value;
}

export function resolveAccumulatorOptions(
  options: AccumulatorOptions,
  limits: { maxFrameBytes?: number | undefined; idempotent: boolean; defaultRequestTimeoutMs?: number | undefined },
): ResolvedAccumulatorOptions {
  const maxFrameBytes = count('maxFrameBytes', limits.maxFrameBytes, DEFAULT_MAX_FRAME_SIZE, 64);
  const recordLimit = limits.idempotent ? Limits.idempotentBatchRecords : Limits.batchRecords;
  const lingerMs = count('lingerMs', options.lingerMs, AccumulatorDefaults.lingerMs, 0);
  const requestTimeoutMs = count(
    'requestTimeoutMs',
    options.requestTimeoutMs,
    limits.defaultRequestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    1,
  );
  const deliveryTimeoutMs = count(
    'deliveryTimeoutMs',
    options.deliveryTimeoutMs,
    AccumulatorDefaults.deliveryTimeoutMs,
    1,
  );
  if (deliveryTimeoutMs < lingerMs + requestTimeoutMs) {
    throw new UsageError(
      `deliveryTimeoutMs must be at least lingerMs + requestTimeoutMs (${lingerMs} + ${requestTimeoutMs} = ${lingerMs + requestTimeoutMs} ms), got ${deliveryTimeoutMs}: ` +
        'a record could otherwise expire while its first request is still waiting for a reply',
    );
  }
  const onBufferFull = options.onBufferFull ?? AccumulatorDefaults.onBufferFull;
  if (!isOneOf(onBufferFull, ['block', 'reject'] as const)) {
    throw new UsageError(`onBufferFull must be 'block' or 'reject', got '${String(onBufferFull)}'`);
  }
  const batchBytes = count('batchBytes', options.batchBytes, maxFrameBytes, 64, maxFrameBytes);
  if (options.bufferBytes !== undefined && options.bufferBytes < batchBytes) {
    throw new UsageError(
      `bufferBytes (${options.bufferBytes}) must be at least batchBytes (${batchBytes}): a full batch has to fit in the buffer`,
    );
  }
  return {
    batchBytes,
    maxBatchRecords: count('maxBatchRecords', options.maxBatchRecords, recordLimit, 1, recordLimit),
    lingerMs,
    maxInFlight: count('maxInFlight', options.maxInFlight, AccumulatorDefaults.maxInFlight, 1, 1_024),
    bufferBytes: count('bufferBytes', options.bufferBytes, AccumulatorDefaults.bufferBytes, batchBytes),
    bufferRecords: count('bufferRecords', options.bufferRecords, Number.MAX_SAFE_INTEGER, 1),
    onBufferFull,
    maxBlockMs: count('maxBlockMs', options.maxBlockMs, AccumulatorDefaults.maxBlockMs, 0),
    deliveryTimeoutMs,
    requestTimeoutMs,
    requestTimeoutGiven: options.requestTimeoutMs !== undefined,
    maxFrameBytes,
    clock: options.clock ?? systemClock,
    random: options.random ?? Math.random,
  };
}
