/**
 * The seam between a Producer and what carries its records: a ProduceSink, and the record and ack types every sink
 * speaks. The direct and idempotent sinks send one request per call; the accumulator (accumulator.ts) batches in
 * front of them.
 */
import type { CraterError } from '../../errors.js';
import type { RecordHeader } from '../../protocol/headers.js';
import type { ProduceAck } from '../../protocol/messages/produce.js';
import type { CodecId, CodecName } from '../../protocol/opcodes.js';

export type { ProduceAck };

export interface ProducerRecord {
  key?: Buffer | string | undefined;
  value: Buffer | string;
  /** crater brokers only (extensions.md §2): asking another broker for headers is a UsageError. */
  headers?: readonly RecordHeader[] | undefined;
}

export interface BatchResult {
  /** One ack per record that landed, aligned with the first `acks.length` records. */
  acks: ProduceAck[];
  /** Set when only a prefix landed: the records from `acks.length` on were not written. */
  error?: CraterError | undefined;
}

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
  /** False when a request sent now could not leave (the connection is gone and the sink cannot open another). */
  canSend?(): boolean;
  /**
   * Undefined while a request sent now would go straight to the socket; else a promise that settles once the bytes
   * already written have drained, so the accumulator encodes no further frames for a peer that stopped reading.
   */
  writable?(): Promise<void> | undefined;
}

/**
 * A sink for a backend that partitions in the client (Kafka): the accumulator then keeps one batch per
 * topic-partition and sends each with sendPartitionBatch. MoonMQ partitions on the broker, so its sinks are not.
 */
export interface PartitionedProduceSink extends ProduceSink {
  partitionFor(topic: string, record: ProducerRecord): number;
  sendPartitionBatch(
    topic: string,
    partition: number,
    records: readonly ProducerRecord[],
    options: SendOptions,
  ): Promise<BatchResult>;
}

export function isPartitionedSink(sink: ProduceSink): sink is PartitionedProduceSink {
  return typeof (sink as Partial<PartitionedProduceSink>).sendPartitionBatch === 'function';
}
