/**
 * The Producer facade. send() goes through the record accumulator (accumulator.ts: batches per topic, linger, batch
 * size, bounded buffer, one delivery deadline: seed 001), which sends batches through one ProduceSink; sendBatch()
 * is the caller's own batching and goes to the sink directly. The sinks belong to a backend (on MoonMQ's protocol
 * moonmq/direct-sink.ts and moonmq/idempotent-sink.ts); this layer knows them only through sink.ts.
 */
import { UsageError } from '../../errors.js';
import { Limits } from '../../protocol/limits.js';
import { RecordAccumulator } from './accumulator.js';
import { type AccumulatorOptions, resolveAccumulatorOptions } from './accumulator-options.js';
import type { ProducerMetrics } from './producer-metrics.js';
import { SendRun } from './send-many.js';
import type { BatchResult, ProduceAck, ProducerRecord, ProduceSink, SendOptions } from './sink.js';
import { TransactionManager, type TransactionOffset, type TransactionState } from './transaction.js';

export interface ProducerIdentity {
  producerId: bigint;
  epoch: number;
}

export type { ProduceSink, SendOptions };

export interface CloseOptions {
  /** How long close() waits for what was accepted to settle before failing the rest (default: until it settles). */
  drainMs?: number | undefined;
}

export interface ProducerOptions extends SendOptions, AccumulatorOptions {
  /** Largest PRODUCE_BATCH frame sendBatch builds (default 1 MiB, the broker's default limit). */
  maxFrameBytes?: number;
  /** Records per PRODUCE_BATCH frame, for send() and sendBatch() (default and maximum 10,000; 1,024 when idempotent). */
  maxBatchRecords?: number | undefined;
  /**
   * Deduplicated produces (INIT_PRODUCER_ID, then sequences per topic). Implied by producerName; the producer then
   * has a connection of its own, since the broker binds a producer id to a connection.
   */
  idempotent?: boolean;
  /** A durable producer: the same name keeps its pid across sessions and restarts, and each session fences the last. */
  producerName?: string;
  /**
   * Every record to this partition in the backend's numbering (MoonMQ's protocol: 1-based, BATCH_FLAG_PARTITION, a
   * crater broker only and not with idempotence; Kafka: 0-based). Absent: the key's hash picks it.
   */
  partition?: number;
}

/** Whether `options` ask for an idempotent producer; a name with `idempotent: false` is a contradiction. */
export function wantsIdempotence(options: ProducerOptions): boolean {
  if (options.idempotent === false && options.producerName !== undefined) {
    throw new UsageError(
      'producerName makes a durable idempotent producer; it cannot be combined with idempotent: false',
    );
  }
  return options.idempotent === true || options.producerName !== undefined;
}

export class Producer implements AsyncDisposable {
  private closed = false;
  private txn: TransactionManager | undefined;

  constructor(
    private readonly sink: ProduceSink,
    private readonly options: ProducerOptions = {},
  ) {
    const idempotent = sink.idempotent;
    const limit = idempotent ? Limits.idempotentBatchRecords : Limits.batchRecords;
    if (options.maxBatchRecords !== undefined && (options.maxBatchRecords < 1 || options.maxBatchRecords > limit)) {
      throw new UsageError(`maxBatchRecords must be 1..${limit}, got ${options.maxBatchRecords}`);
    }
    this.maxBatchRecords = options.maxBatchRecords ?? limit;
    const resolved = resolveAccumulatorOptions(
      { ...options, requestTimeoutMs: options.requestTimeoutMs ?? options.timeoutMs },
      { maxFrameBytes: options.maxFrameBytes, idempotent, defaultRequestTimeoutMs: sink.defaultRequestTimeoutMs },
    );
    this.accumulator = new RecordAccumulator(sink, resolved, {
      codec: options.codec,
      fixedPartition: options.partition !== undefined,
    });
  }

  private readonly maxBatchRecords: number;
  private readonly accumulator: RecordAccumulator;

  /** The producer id and epoch of an idempotent producer (after its first send). */
  get identity(): ProducerIdentity | undefined {
    const id = this.sink.producerIdentity;
    return id && { producerId: id.producerId, epoch: id.epoch };
  }

  send(topic: string, record: ProducerRecord): Promise<ProduceAck> {
    if (this.closed) return Promise.reject(new UsageError('send on a closed producer'));
    if (this.txn?.state === 'failed') return Promise.reject(this.txn.failedError());
    const sent = this.accumulator.send(topic, record);
    if (!this.txn?.isOpen) return sent;
    return sent.catch((error: unknown) => {
      this.txn?.markFailed(error as Error);
      throw error;
    });
  }

  /**
   * send() for many records with one promise for all of them (send-many.ts): the records from `start` on that fit
   * in the buffer now are taken, in order (`accepted` says how many); each settles exactly once in `outcomes`.
   */
  sendMany(topic: string, records: readonly ProducerRecord[], start = 0): SendRun {
    const count = records.length - start;
    if (this.closed) return SendRun.refused(start, count, new UsageError('send on a closed producer'));
    if (this.txn?.state === 'failed') return SendRun.refused(start, count, this.txn.failedError());
    const txn = this.txn?.isOpen ? this.txn : undefined;
    return this.accumulator.sendMany(topic, records, start, txn && ((error) => txn.markFailed(error)));
  }

  // Transactions (a durable producer only: producerName)

  /** 'none', 'open', or 'failed' (a request inside the transaction failed: only abort remains). */
  get transactionState(): TransactionState {
    return this.txn?.state ?? 'none';
  }

  /** BEGIN_TXN: the records sent until commit or abort become visible to read_committed readers together, or never. */
  async beginTransaction(): Promise<void> {
    if (this.closed) throw new UsageError('beginTransaction on a closed producer');
    await this.transactions().begin();
  }

  /** END_TXN commit; throws when the broker aborted the transaction instead (a dropped connection, a timeout). */
  async commitTransaction(): Promise<void> {
    const txn = this.transactions();
    await this.accumulator.flush();
    await txn.commit();
  }

  /** END_TXN abort: nothing sent in the transaction reaches read_committed readers, and its offsets are dropped. */
  async abortTransaction(): Promise<void> {
    const txn = this.transactions();
    await this.accumulator.flush();
    await txn.abort();
  }

  /** TXN_OFFSET_COMMIT: the group's offsets are committed with the transaction (consume-transform-produce). */
  async sendOffsetsToTransaction(group: string, offsets: readonly TransactionOffset[]): Promise<void> {
    await this.transactions().sendOffsets(group, offsets);
  }

  private transactions(): TransactionManager {
    if (this.txn) return this.txn;
    if (!this.sink.transactions)
      throw new UsageError('transactions need a durable producer: give the producer a producerName');
    this.txn = new TransactionManager(this.sink.transactions());
    return this.txn;
  }

  /**
   * Sends records in as many PRODUCE_BATCH frames as their size needs, in order. Chunks go one after another so
   * the result keeps the prefix contract across chunks: on the first partial or failed chunk the rest is not
   * sent, `acks` covers exactly the records that landed and `error` says why the others did not. A failure
   * before any record landed throws.
   */
  async sendBatch(topic: string, records: readonly ProducerRecord[]): Promise<BatchResult> {
    if (this.closed) throw new UsageError('sendBatch on a closed producer');
    if (this.txn?.state === 'failed') throw this.txn.failedError();
    if (records.length === 0) return { acks: [] };
    const chunks = this.sink.framing.split(topic, records, {
      maxFrameBytes: this.options.maxFrameBytes,
      maxRecords: this.maxBatchRecords,
      fixedPartition: this.options.partition !== undefined,
    });
    const acks: ProduceAck[] = [];
    for (const chunk of chunks) {
      let result: BatchResult;
      try {
        result = await this.sink.sendBatch(topic, chunk, this.sendOptions());
      } catch (error) {
        this.txn?.markFailed(error as Error);
        if (acks.length === 0) throw error;
        return { acks, error: error as BatchResult['error'] };
      }
      for (const ack of result.acks) acks.push(ack);
      if (result.error) {
        this.txn?.markFailed(result.error);
        return { acks, error: result.error };
      }
    }
    return { acks };
  }

  /** Sends what is batched now and resolves when every send() and sendBatch() made before it has settled. */
  async flush(): Promise<void> {
    await this.accumulator.flush();
    await this.sink.flush();
  }

  /** Bytes of the buffer (bufferBytes) not held by records waiting in the client: cheap, unlike metrics(). */
  get bufferAvailableBytes(): number {
    return this.accumulator.bufferAvailableBytes;
  }

  /** Kafka's producer metrics (record-queue-time-avg, batch-size-avg, buffer-available-bytes, …). */
  metrics(): ProducerMetrics {
    return this.accumulator.metrics();
  }

  /**
   * Stops admission, drains within `drainMs` (what is left then fails: never sent, or uncertain when in flight),
   * and closes the sink; the client's connection stays open.
   */
  async close(options: CloseOptions = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.accumulator.close(options.drainMs);
    await this.sink.flush();
    await this.sink.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private sendOptions(): SendOptions {
    return { codec: this.options.codec, timeoutMs: this.options.timeoutMs };
  }
}
