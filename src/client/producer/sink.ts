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

/**
 * How a sink's batch requests are sized: the accumulator cuts batches by these numbers (the backend's framing; on
 * MoonMQ's protocol, PRODUCE_BATCH's FrameLen).
 */
export interface BatchFraming {
  /** Bytes of a batch request to `topic` before its first record. */
  overhead(topic: string, fixedPartition: boolean): number;
  /** Bytes one record adds to a batch request (with or without a header block). */
  entrySize(record: ProducerRecord, withHeaders: boolean): number;
  /** `records` in order, cut into requests of at most `maxFrameBytes` and `maxRecords` (sendBatch()'s chunks). */
  split<R extends ProducerRecord>(
    topic: string,
    records: readonly R[],
    limits: { maxFrameBytes?: number | undefined; maxRecords: number; fixedPartition: boolean },
  ): R[][];
}

/** A batch's records, encoded once as the sink's batch entries when they were appended (EntryWriter). */
export interface EncodedEntries {
  /** The entries, in order, possibly in several buffers. */
  parts: readonly Buffer[];
  byteLength: number;
  count: number;
  withHeaders: boolean;
}

/** Encodes records as batch entries into one growing buffer. */
export interface EntryWriter {
  /** Bytes written so far. */
  readonly length: number;
  append(record: ProducerRecord, withHeaders: boolean): void;
  /** The entries written, in order (views of the writer's buffers). */
  parts(): Buffer[];
}

/** What a producer-level transaction needs from the sink (a durable idempotent sink only). */
export interface SinkTransactions {
  begin(): Promise<void>;
  sendOffsets(group: string, offsets: readonly { topic: string; partition: number; offset: bigint }[]): Promise<void>;
  end(commit: boolean): Promise<void>;
}

/** Where a Producer's records go. Implementations may buffer; flush() resolves when everything accepted landed. */
export interface ProduceSink {
  readonly framing: BatchFraming;
  /** The sink numbers records per (pid, topic): `inFlightPerTopic` batches per topic in flight, at most 1,024 records each. */
  readonly idempotent: boolean;
  /**
   * An idempotent sink's batches per topic that may be in flight now (default 1): 5 once a crater broker's idempotent
   * window is in use (docs/extensions.md), 1 against MoonMQ. Single records then go as batches too.
   */
  readonly inFlightPerTopic?: number;
  /** Milliseconds a request waits for its reply unless told otherwise. */
  readonly defaultRequestTimeoutMs: number;
  /** The producer id and epoch of an idempotent sink's current session, once it has one. */
  readonly producerIdentity?: { producerId: bigint; epoch: number } | undefined;
  /** A durable idempotent sink's transaction requests; undefined where transactions are not possible. */
  transactions?(): SinkTransactions;
  /** A writer for this sink's batch entries: with it the accumulator encodes each record once, when appended. */
  entryWriter?(): EntryWriter;
  /** Sends entries an entryWriter() encoded, as one batch request (the counterpart of sendBatch). */
  sendEntries?(topic: string, entries: EncodedEntries, options: SendOptions): Promise<BatchResult>;
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
