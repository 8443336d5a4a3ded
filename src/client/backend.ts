/**
 * The backend seam: what the commands, the bench and the producer/consumer layers need from "a broker", whichever
 * protocol carries it. Two backends implement it: `Client` (MoonMQ's wire protocol, src/client/moonmq/) and
 * `KafkaBackend` (Apache Kafka through @platformatic/kafka, src/client/kafka/). `connectBackend()` picks one by the
 * address: `kafka://host:port[,host:port...]` is Kafka, anything else MoonMQ.
 *
 * Units are each backend's own and are passed through untouched: MoonMQ numbers partitions from 1 and its offsets
 * are byte positions (segmented topics) or record counts (commitlog topics); Kafka numbers partitions from 0 and
 * its offsets are record counts. Callers that print them say which backend they came from (`kind`).
 *
 * Only types are imported here, from protocol/ and from the type and option files of producer/ and consumer/ (never
 * from their classes, which import this file), so producer/ and consumer/ depend on the seam without a cycle and
 * without pulling either backend in.
 */
import type { RecordHeader } from '../protocol/headers.js';
import type { GroupDescription } from '../protocol/messages/describe-group.js';
import type { TopicDescription } from '../protocol/messages/describe-topic.js';
import type { FetchedRecord } from '../protocol/messages/fetch.js';
import type { FetchTable } from './fetch-table.js';
import type { GroupListing } from '../protocol/messages/list-groups.js';
import type { Offsets } from '../protocol/messages/list-offsets.js';
import type { NackAck } from '../protocol/messages/nack.js';
import type { CodecId, CodecName, IsolationName } from '../protocol/opcodes.js';
import type { BatchConsumerOptions, BatchConsumerStats, BatchHandler } from './consumer/batch/types.js';
import type { AccumulatorOptions } from './producer/accumulator-options.js';
import type { Producer, ProducerOptions } from './producer/producer.js';
import type { ProducerMetrics } from './producer/producer-metrics.js';
import type { SendRun } from './producer/send-many.js';
import type { BatchResult, ProduceAck, ProducerRecord } from './producer/sink.js';

export type {
  BatchResult,
  FetchedRecord,
  GroupDescription,
  GroupListing,
  Offsets,
  ProduceAck,
  ProducerRecord,
  RecordHeader,
  TopicDescription,
};

export const BackendKinds = ['moonmq', 'kafka'] as const;
export type BackendKind = (typeof BackendKinds)[number];

/** The URL scheme that selects the Kafka backend. */
export const KAFKA_SCHEME = 'kafka://';

export function backendKindOf(address: string): BackendKind {
  return address.trim().toLowerCase().startsWith(KAFKA_SCHEME) ? 'kafka' : 'moonmq';
}

export type BackendIsolation = IsolationName;
/** Codecs either backend may be asked for; MoonMQ has none, gzip and snappy, Kafka also lz4 and zstd. */
export type BackendCodec = CodecId | CodecName | 'lz4' | 'zstd';
export type BackendConfigEntries = Readonly<Record<string, string | number>> | readonly (readonly [string, string])[];

export interface BackendProduceOptions {
  codec?: BackendCodec | undefined;
  timeoutMs?: number | undefined;
  /** Kafka only: the partition (0-based) for every record; absent, the key's hash picks it. */
  partition?: number | undefined;
}

export interface BackendFetchOptions {
  /** Records to return at most (default 100). */
  maxRecords?: number;
  isolation?: BackendIsolation | undefined;
  /** Ask for record headers (MoonMQ: crater brokers only; Kafka: always there). */
  headers?: boolean;
  timeoutMs?: number;
  /** MoonMQ: a batched reply as a FetchTable (no object per record) with `records` empty; Kafka ignores it. */
  table?: boolean;
}

export interface BackendFetchResult {
  records: FetchedRecord[];
  /** With `table: true` on MoonMQ, the reply's records (then `records` is empty). */
  table?: FetchTable | undefined;
}

export interface BackendSubscribeOptions {
  isolation?: BackendIsolation | undefined;
}

/** A push stream of records for one group; leaving `for await` or close() ends it. */
export interface BackendSubscription extends AsyncIterable<FetchedRecord> {
  /** Resolves once the stream is set up (the group joined); rejects if it cannot be. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export interface BackendTransactionOffset {
  topic: string;
  partition: number;
  /** The next record to read. */
  offset: bigint;
}

export type BackendTransactionState = 'none' | 'open' | 'failed';

/** The accumulator's tuning (lingerMs, batchBytes, bufferBytes, …) applies where the backend batches in the client. */
export interface BackendProducerOptions extends AccumulatorOptions {
  codec?: BackendCodec | undefined;
  timeoutMs?: number | undefined;
  maxFrameBytes?: number;
  maxBatchRecords?: number;
  idempotent?: boolean;
  /** A durable producer (MoonMQ's producer name, Kafka's transactional.id); needed for transactions. */
  producerName?: string;
  /** Kafka only: every record to this 0-based partition. */
  partition?: number;
}

/** What `producer()` returns: the Producer facade on MoonMQ, a Kafka producer on Kafka. */
export interface BackendProducer extends AsyncDisposable {
  send(topic: string, record: ProducerRecord): Promise<ProduceAck>;
  /** MoonMQ's Producer: send() for many records with one promise for all (producer/send-many.ts). */
  sendMany?(topic: string, records: readonly ProducerRecord[], start?: number): SendRun;
  sendBatch(topic: string, records: readonly ProducerRecord[]): Promise<BatchResult>;
  readonly transactionState: BackendTransactionState;
  beginTransaction(): Promise<void>;
  commitTransaction(): Promise<void>;
  abortTransaction(): Promise<void>;
  /** The group's offsets commit with the transaction (consume-transform-produce). */
  sendOffsetsToTransaction(group: string, offsets: readonly BackendTransactionOffset[]): Promise<void>;
  flush(): Promise<void>;
  close(): Promise<void>;
  /** Where the client accumulates (MoonMQ's Producer): buffer room left, and Kafka-named producer metrics. */
  readonly bufferAvailableBytes?: number;
  metrics?(): ProducerMetrics;
  /** Kafka's producer (no metrics): the Produce requests it sent, retries included. */
  readonly requestsSent?: number;
}

export interface BackendConsumerOptions {
  group: string;
  topics: string | readonly string[];
  isolation?: BackendIsolation | undefined;
}

export interface BackendPollOptions {
  /** Records to take from one partition per poll (MoonMQ). */
  maxPerPartition?: number;
  /** Hard total for the poll. */
  maxRecords?: number;
  timeoutMs?: number;
}

/**
 * A pull consumer of a group (`client.consumer()`): each poll returns records and commits the group past them, as a
 * MoonMQ broker commits what it sends; commit() moves a partition elsewhere (the next record to read).
 */
export interface BackendConsumer extends AsyncIterable<FetchedRecord>, AsyncDisposable {
  readonly group: string;
  readonly topics: readonly string[];
  poll(options?: BackendPollOptions): Promise<FetchedRecord[]>;
  commit(topic: string, partition: number, offset: bigint): Promise<void>;
  nack(topic: string, partition: number, offset: bigint, reason: string): Promise<NackAck>;
  records(options?: BackendPollOptions): AsyncGenerator<FetchedRecord, void, undefined>;
  close(): Promise<void>;
}

/**
 * The batch consumer's reader (consumer/batch/): fetches as one group, which each fetch commits past what it
 * returned, and tells where that group stands.
 */
export interface BackendGroupFetcher {
  readonly closed: boolean;
  /**
   * One fetch of up to `maxRecords`. With `withCursors`, also the group's offsets right after this fetch (each
   * partition's next record past everything fetched so far), as seen before any later fetch moved them.
   */
  fetch(
    topic: string,
    options: { maxRecords: number; withCursors: boolean },
  ): Promise<{ records: FetchedRecord[]; cursors: BackendTransactionOffset[] | undefined }>;
  /** The group's offsets now (nothing in flight). */
  cursors(): Promise<BackendTransactionOffset[]>;
  close(): Promise<void>;
}

/**
 * What `batchConsumer()` returns (consumer/batch/batch-consumer.ts's BatchConsumer, on either backend): declared
 * here so the seam does not import the class that is written against it.
 */
export interface BackendBatchConsumer<T = Buffer> extends AsyncDisposable {
  readonly group: string;
  readonly topics: readonly string[];
  readonly stats: BatchConsumerStats;
  /** Records fetched and not finished yet. */
  readonly inFlight: number;
  /** Consumes until stop() (resolves) or a failure it cannot handle (rejects). */
  run(handler: BatchHandler<T>): Promise<void>;
  stop(): Promise<void>;
  close(): Promise<void>;
}

/** One connected broker (MoonMQ) or cluster (Kafka). Every call returns a promise; offsets are bigint. */
export interface Backend extends AsyncDisposable {
  readonly kind: BackendKind;
  /** The first partition's number: 1 on MoonMQ's protocol, 0 on Kafka. */
  readonly firstPartition: 0 | 1;
  /** `host:port` (MoonMQ) or `kafka://host:port,...` (Kafka). */
  readonly address: string;
  /** True for a crater broker, which allows the extensions (headers on MoonMQ's protocol). */
  readonly isCrater: boolean;
  /** Kafka has record headers natively; MoonMQ only on a crater broker. */
  readonly supportsHeaders: boolean;
  readonly serverName: string | undefined;
  readonly serverVersion: string | undefined;

  createTopic(name: string, partitions: number): Promise<void>;
  listTopics(): Promise<string[]>;
  describeTopic(name: string): Promise<TopicDescription>;
  deleteTopic(name: string): Promise<void>;
  alterTopicConfig(name: string, entries: BackendConfigEntries): Promise<void>;
  createPartitions(name: string, total: number): Promise<void>;
  listOffsets(topic: string, options?: { timestampMs?: bigint | number }): Promise<Offsets>;

  produce(topic: string, record: ProducerRecord & BackendProduceOptions): Promise<ProduceAck>;
  /** Acks for the landed prefix plus, on a partial append, its error; a failure before anything landed throws. */
  produceBatch(
    topic: string,
    records: readonly ProducerRecord[],
    options?: BackendProduceOptions,
  ): Promise<BatchResult>;
  /**
   * produceBatch in two steps, so a caller encodes the next batch while the previous one is in flight (MoonMQ only;
   * absent where the library encodes at send time).
   */
  prepareBatch?(
    topic: string,
    records: readonly ProducerRecord[],
    options?: BackendProduceOptions,
  ): { readonly count: number; send(): Promise<BatchResult> };
  producer(options?: BackendProducerOptions): BackendProducer;
  /**
   * The producer accumulator (seed 001) over this backend: MoonMQ's `producer()` itself; on Kafka a plain producer
   * whose batches, one per topic-partition, the accumulator builds (kafka/kafka-sink.ts).
   */
  accumulator(options?: ProducerOptions): Producer;

  /** Records for `group`, which is then committed past them (the next fetch continues after them). */
  fetch(topic: string, group: string, options?: BackendFetchOptions): Promise<BackendFetchResult>;
  /**
   * Kafka: joins `group` as the member that fetch() then reads with (JoinGroup, SyncGroup, the assignment), so the
   * first fetch does not pay for it (a benchmark times the reads only). MoonMQ has no such step.
   */
  joinFetchGroup?(topic: string, group: string, options?: { isolation?: BackendIsolation }): Promise<void>;
  subscribe(topic: string, group: string, options?: BackendSubscribeOptions): BackendSubscription;
  /** Stores `offset` (the next record to read) for the group this backend fetched as. */
  commit(topic: string, partition: number, offset: bigint): Promise<void>;
  /** MoonMQ only; Kafka refuses it (UnsupportedError). */
  nack(topic: string, partition: number, offset: bigint, reason: string): Promise<NackAck>;

  /** A pull consumer of a group on a connection (Kafka: a group member) of its own. */
  consumer(options: BackendConsumerOptions): Promise<BackendConsumer>;
  /** The batch consumer (seed 003) over this backend: call run(handler), then stop() or dispose it. */
  batchConsumer<T = Buffer>(options: BatchConsumerOptions<T>): BackendBatchConsumer<T>;
  /**
   * Stores offsets (each the next record to read) for a group with no live member, without fetching as it (Kafka:
   * OffsetCommit through the admin client). Absent on MoonMQ's protocol, where a COMMIT needs a FETCH as the group.
   */
  storeGroupOffsets?(group: string, offsets: readonly BackendTransactionOffset[]): Promise<void>;

  listGroups(): Promise<GroupListing[]>;
  describeGroup(groupId: string): Promise<GroupDescription>;
  deleteGroup(groupId: string): Promise<void>;

  close(): Promise<void>;
}
