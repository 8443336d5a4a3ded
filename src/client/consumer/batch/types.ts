/**
 * The batch consumer's public types (seed 003): a MessageBatch of BatchItems, each with the deserialised `message`
 * and its `transport` context; what a handler may return; the options; the typed lifecycle events.
 */
import type { RecordHeader } from '../../../protocol/headers.js';
import type { IsolationName } from '../../../protocol/opcodes.js';
import type { BatchResult, ProduceAck, ProducerRecord } from '../../producer/sink.js';
import type { Backoff } from './backoff.js';
import type { Clock } from './clock.js';

/** Where an item came from: raw bytes and log metadata. */
export interface TransportContext {
  readonly topic: string;
  /** 1-based, as the protocol numbers partitions. */
  readonly partition: number;
  readonly offset: bigint;
  /** Broker append time, ms. */
  readonly timestamp: bigint;
  readonly key: Buffer;
  readonly value: Buffer;
  /** Empty on a MoonMQ broker (no headers there). */
  readonly headers: readonly RecordHeader[];
  /** 1 the first time the item reaches a handler, 2 on its first retry, … */
  readonly deliveryAttempt: number;
}

export interface BatchItem<T> {
  readonly message: T;
  readonly transport: TransportContext;
}

/** Produces inside the invocation's transaction (transactional mode only). */
export interface BatchTransaction {
  send(topic: string, record: ProducerRecord): Promise<ProduceAck>;
  sendBatch(topic: string, records: readonly ProducerRecord[]): Promise<BatchResult>;
}

/** What a handler may say about single items; items it does not mention are done. */
export type ItemResult<T> =
  | { item: BatchItem<T>; outcome: 'ok' }
  | { item: BatchItem<T>; outcome: 'retry'; reason?: string }
  | { item: BatchItem<T>; outcome: 'dead-letter'; reason: string };

export type BatchHandler<T> = (
  batch: MessageBatch<T>,
) => void | readonly ItemResult<T>[] | Promise<void | readonly ItemResult<T>[]>;

/**
 * An immutable, indexable list of items plus the invocation's context. It is a frozen Array (batch[0], length,
 * for-of, map), so indexing costs what an array's does; `items` is the same list, `count` its length.
 */
export class MessageBatch<T> extends Array<BatchItem<T>> {
  /** map/filter/slice on a batch give plain arrays, not batches without a context. */
  static override get [Symbol.species](): ArrayConstructor {
    return Array;
  }

  /** 0 on the first invocation, n on the n-th retry. */
  readonly retryAttempt: number;
  /** Aborts when the consumer is stopping. A handler may finish its batch or give up early. */
  readonly signal: AbortSignal;
  /** The worker (0-based) that accumulated this batch. */
  readonly worker: number;
  readonly #txn: BatchTransaction | undefined;

  constructor(
    items: readonly BatchItem<T>[],
    retryAttempt: number,
    signal: AbortSignal,
    worker: number,
    txn?: BatchTransaction,
  ) {
    super(items.length);
    for (let i = 0; i < items.length; i++) this[i] = items[i]!;
    this.retryAttempt = retryAttempt;
    this.signal = signal;
    this.worker = worker;
    this.#txn = txn;
    Object.freeze(this);
  }

  get items(): readonly BatchItem<T>[] {
    return this;
  }

  get count(): number {
    return this.length;
  }

  /** The transaction this invocation runs in; undefined unless the consumer is transactional. */
  get transaction(): BatchTransaction | undefined {
    return this.#txn;
  }
}

export type InvalidAction = 'dead-letter' | 'discard';

export interface RetryOptions {
  /** Retries after the first invocation (default 3); 0 dead-letters or discards at the first failure. */
  attempts?: number;
  /** Default: exponential from 200 ms to 5 s with full jitter. */
  backoff?: Backoff;
  /** What happens to each item once retries are exhausted (default 'dead-letter'). */
  onExhausted?: InvalidAction;
}

export interface RateLimitOptions {
  permitsPerSecond: number;
  /** Bucket capacity; must be at least maxSize. */
  burst: number;
}

export interface CircuitBreakerOptions {
  /** Failed invocations within the window that open the circuit. */
  failureThreshold: number;
  samplingWindowMs: number;
  /** How long every worker pauses once the circuit opens; then one batch tries (half-open). */
  pauseMs: number;
}

export interface BatchConsumerOptions<T = Buffer> {
  group: string;
  topics: string | readonly string[];
  /** Items per batch (default 100, > 0). */
  maxSize?: number;
  /** Longest wait after a batch's first item before dispatching what there is (default 5 s, > 0). */
  timeoutMs?: number;
  /** Independent accumulators; one partition always goes to the same worker (default 1). */
  workers?: number;
  /** Value bytes → message (default: the bytes). A throw makes the item invalid. */
  deserialize?: (value: Buffer, transport: TransportContext) => T;
  /** Items for which any filter returns false are dropped silently; their offsets still advance. */
  filters?: readonly ((item: BatchItem<T>) => boolean)[];
  /** undefined or true: valid; false or a string (the reason): invalid, handled by onInvalid. */
  validate?: (item: BatchItem<T>) => boolean | string | undefined;
  onInvalid?: InvalidAction;
  retry?: RetryOptions;
  rateLimit?: RateLimitOptions;
  circuitBreaker?: CircuitBreakerOptions;
  /** How often finished offsets are committed (default 5 s); always on stop. Ignored when transactional. */
  commitIntervalMs?: number;
  /** Each invocation in a transaction: produced records, dead letters and the batch's offsets commit together. */
  transactional?: boolean;
  isolation?: IsolationName;
  /** Records per FETCH (default max(maxSize, 500)). */
  fetchMaxRecords?: number;
  /** Wait between FETCHes that found nothing (default 50 ms, real time). */
  idleWaitMs?: number;
  clock?: Clock;
  /** [0, 1) source for backoff jitter (default Math.random). */
  random?: () => number;
  onEvent?: (event: BatchConsumerEvent) => void;
}

export type BreakerState = 'closed' | 'open' | 'half-open';

export type BatchConsumerEvent =
  | { type: 'accumulating'; worker: number; size: number; waitMs: number }
  | { type: 'dispatch'; worker: number; size: number; retryAttempt: number }
  | { type: 'batch-failed'; worker: number; retryAttempt: number; error: Error; backoffMs: number | undefined }
  | { type: 'batch-done'; worker: number; done: number; retrying: number }
  | { type: 'backoff'; worker: number; retryAttempt: number; delayMs: number }
  | { type: 'dead-lettered'; topic: string; partition: number; offset: bigint; dlqTopic: string; reason: string }
  | { type: 'discarded'; topic: string; partition: number; offset: bigint; reason: string }
  | { type: 'rate-limited'; worker: number; permits: number; waitMs: number }
  | { type: 'breaker'; state: BreakerState }
  | { type: 'committed'; offsets: ReadonlyArray<{ topic: string; partition: number; offset: bigint }> }
  | { type: 'error'; error: Error };

/** Running totals, for progress lines and summaries. */
export interface BatchConsumerStats {
  batches: number;
  records: number;
  processed: number;
  filtered: number;
  retries: number;
  deadLettered: number;
  discarded: number;
  commits: number;
}
