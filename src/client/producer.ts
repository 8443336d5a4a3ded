/**
 * The Producer facade. Every produce goes through one ProduceSink, so a client-side accumulator (per-partition
 * batches, linger, batch size: seed 001) can later be a sink that sits in front of produceBatch without callers
 * changing. Today the only sink is DirectSink: one request per send, one PRODUCE_BATCH per chunk.
 *
 * Idempotence is shaped here but not implemented: producerId/epoch/sequence bookkeeping (advance by the acks that
 * landed, reuse the sequence after a failed single produce: wire.md §13.5) belongs to a later sink.
 */
import { UsageError } from '../errors.js';
import type { CodecId, CodecName } from '../protocol/opcodes.js';
import { Limits } from '../protocol/limits.js';
import { produce, produceBatch, type BatchResult, type ProduceAck, type ProducerRecord } from './produce-ops.js';
import type { Session } from './session.js';
import { splitBatch } from './split-batch.js';

export interface SendOptions {
  codec?: CodecId | CodecName | undefined;
  timeoutMs?: number | undefined;
}

/** Where a Producer's records go. Implementations may buffer; flush() resolves when everything accepted landed. */
export interface ProduceSink {
  send(topic: string, record: ProducerRecord, options: SendOptions): Promise<ProduceAck>;
  /** Records of one PRODUCE_BATCH frame (already split to fit). */
  sendBatch(topic: string, records: readonly ProducerRecord[], options: SendOptions): Promise<BatchResult>;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** A producer identity (INIT_PRODUCER_ID): named producers are durable and fenced by epoch. */
export interface IdempotenceOptions {
  /** Empty or absent: an ephemeral producer whose sequence state lives on the connection only. */
  producerName?: string;
}

export interface ProducerIdentity {
  producerId: bigint;
  epoch: number;
}

export interface ProducerOptions extends SendOptions {
  /** Largest PRODUCE_BATCH frame sendBatch builds (default 1 MiB, the broker's default limit). */
  maxFrameBytes?: number;
  /** Records per PRODUCE_BATCH frame (default and maximum 10,000; 1,024 once idempotent). */
  maxBatchRecords?: number;
  /** Not available yet: setting it throws UsageError rather than silently producing without dedup. */
  idempotence?: boolean | IdempotenceOptions;
}

export class DirectSink implements ProduceSink {
  constructor(private readonly session: Session) {}

  send(topic: string, record: ProducerRecord, options: SendOptions): Promise<ProduceAck> {
    return produce(this.session, topic, record, options);
  }

  sendBatch(topic: string, records: readonly ProducerRecord[], options: SendOptions): Promise<BatchResult> {
    return produceBatch(this.session, topic, records, options);
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}
}

export class Producer implements AsyncDisposable {
  private closed = false;

  constructor(
    private readonly sink: ProduceSink,
    private readonly options: ProducerOptions = {},
  ) {
    if (options.idempotence) {
      throw new UsageError('idempotent producers are not implemented yet; omit the idempotence option');
    }
  }

  send(topic: string, record: ProducerRecord): Promise<ProduceAck> {
    if (this.closed) return Promise.reject(new UsageError('send on a closed producer'));
    return this.sink.send(topic, record, this.sendOptions());
  }

  /**
   * Sends records in as many PRODUCE_BATCH frames as their size needs, in order. Chunks go one after another so
   * the result keeps the prefix contract across chunks: on the first partial or failed chunk the rest is not
   * sent, `acks` covers exactly the records that landed and `error` says why the others did not. A failure
   * before any record landed throws.
   */
  async sendBatch(topic: string, records: readonly ProducerRecord[]): Promise<BatchResult> {
    if (this.closed) throw new UsageError('sendBatch on a closed producer');
    if (records.length === 0) return { acks: [] };
    const chunks = splitBatch(records, {
      topic,
      maxFrameBytes: this.options.maxFrameBytes,
      maxRecords: this.options.maxBatchRecords ?? Limits.batchRecords,
    });
    const acks: ProduceAck[] = [];
    for (const chunk of chunks) {
      let result: BatchResult;
      try {
        result = await this.sink.sendBatch(topic, chunk, this.sendOptions());
      } catch (error) {
        if (acks.length === 0) throw error;
        return { acks, error: error as BatchResult['error'] };
      }
      for (const ack of result.acks) acks.push(ack);
      if (result.error) return { acks, error: result.error };
    }
    return { acks };
  }

  flush(): Promise<void> {
    return this.sink.flush();
  }

  /** Flushes and closes the sink; the client's connection stays open. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
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

/** The same as `client.producer(options)`. */
export function createProducer(client: { readonly session: Session }, options: ProducerOptions = {}): Producer {
  return new Producer(new DirectSink(client.session), options);
}
