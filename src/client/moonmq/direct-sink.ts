/** The plain sink: one PRODUCE per send and one PRODUCE_BATCH per chunk, on the client's own session. */
import { UsageError } from '../../errors.js';
import type {
  BatchFraming,
  BatchResult,
  EncodedEntries,
  ProduceAck,
  ProducerRecord,
  ProduceSink,
  SendOptions,
} from '../producer/sink.js';
import { ChunkedEntryWriter, moonmqFraming } from './batch-entries.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './connection.js';
import { produce, produceBatch, produceEntries } from './produce-ops.js';

const FRAMING = moonmqFraming(false);
import type { Session } from './session.js';

export class DirectSink implements ProduceSink {
  readonly framing: BatchFraming = FRAMING;
  readonly idempotent = false;
  readonly defaultRequestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS;

  /** `partition`: every record to it (1-based, BATCH_FLAG_PARTITION, crater brokers only); PRODUCE cannot say it. */
  constructor(
    private readonly session: Session,
    private readonly partition?: number,
  ) {}

  async send(topic: string, record: ProducerRecord, options: SendOptions): Promise<ProduceAck> {
    if (this.partition === undefined) return produce(this.session, topic, record, options);
    const result = await this.sendBatch(topic, [record], options);
    if (result.acks[0] === undefined) throw result.error ?? new UsageError('the broker acknowledged no record');
    return result.acks[0];
  }

  sendBatch(topic: string, records: readonly ProducerRecord[], options: SendOptions): Promise<BatchResult> {
    return produceBatch(this.session, topic, records, { ...options, partition: this.partition });
  }

  entryWriter(): ChunkedEntryWriter {
    return new ChunkedEntryWriter();
  }

  sendEntries(topic: string, entries: EncodedEntries, options: SendOptions): Promise<BatchResult> {
    return produceEntries(this.session, topic, entries, { ...options, partition: this.partition });
  }

  canSend(): boolean {
    return !this.session.conn.closed;
  }

  writable(): Promise<void> | undefined {
    const conn = this.session.conn;
    return conn.queuedBytes > 0 && !conn.closed ? conn.writable() : undefined;
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}
}
