/**
 * The Kafka backend (backend.ts) over @platformatic/kafka: one Admin for topics, offsets and groups, one plain
 * producer for produce/produceBatch (acks=all), a group member per fetching group (group-reader.ts), and idempotent
 * or transactional producers on demand. Kafka's units pass through: partitions from 0, offsets as record counts.
 *
 * What MoonMQ's protocol has and Kafka has not is refused with UnsupportedError: NACK, and FETCH's legacy
 * one-RECORD-per-record reply shape (and its raw frames).
 */
import { Admin, type Producer, ProduceAcks } from '@platformatic/kafka';
import { randomUUID } from 'node:crypto';
import type {
  Backend,
  BackendConfigEntries,
  BackendConsumerOptions,
  BackendTransactionOffset,
  BackendFetchOptions,
  BackendFetchResult,
  BackendIsolation,
  BackendProduceOptions,
  BackendProducerOptions,
  BackendSubscribeOptions,
  BackendSubscription,
  BatchResult,
  GroupDescription,
  GroupListing,
  Offsets,
  ProduceAck,
  ProducerRecord,
  TopicDescription,
} from '../backend.js';
import { UnsupportedError, UsageError } from '../../errors.js';
import { BatchConsumer } from '../consumer/batch/batch-consumer.js';
import type { BatchConsumerOptions } from '../consumer/batch/types.js';
import type { NackAck } from '../../protocol/messages/nack.js';
import { formatKafkaBootstrap, parseKafkaBootstrap } from './address.js';
import { kafkaCall } from './errors.js';
import { GroupReader } from './group-reader.js';
import { GuardedProducer } from './guarded-clients.js';
import * as admin from './kafka-admin.js';
import { PartitionChooser, RETRY, plainSender, sendRecords } from './kafka-produce.js';
import { KafkaConsumer, KafkaGroupFetcher } from './kafka-consumer.js';
import { KafkaProducer } from './kafka-producer.js';
import { KafkaSink } from './kafka-sink.js';
import { Producer as Accumulator, type ProducerOptions } from '../producer/producer.js';
import { KafkaSubscription } from './kafka-subscription.js';

export const KAFKA_BACKEND = 'kafka';

export interface KafkaConnectOptions {
  /** `kafka://host:port[,host:port...]` or the list itself. */
  bootstrap: string | readonly string[];
  timeoutMs?: number | undefined;
  username?: string | undefined;
  password?: string | undefined;
  clientId?: string;
}

/** Connects to the cluster and checks that it answers metadata (a ConnectionError naming it otherwise). */
export async function connectKafka(options: KafkaConnectOptions): Promise<KafkaBackend> {
  if (options.username !== undefined || options.password !== undefined) {
    throw new UnsupportedError(KAFKA_BACKEND, 'user name and password (SASL is not configured in crater yet)');
  }
  const brokers =
    typeof options.bootstrap === 'string' ? parseKafkaBootstrap(options.bootstrap) : [...options.bootstrap];
  const backend = new KafkaBackend(
    brokers,
    options.timeoutMs ?? 30_000,
    options.clientId ?? `crater-${randomUUID().slice(0, 8)}`,
  );
  try {
    await kafkaCall(`connect to ${backend.address}`, () => backend.admin.metadata({ topics: [] }));
  } catch (error) {
    await backend.close();
    throw error;
  }
  return backend;
}

export class KafkaBackend implements Backend {
  readonly kind = 'kafka' as const;
  readonly firstPartition = 0 as const;
  readonly isCrater = false;
  readonly supportsHeaders = true;
  readonly serverName = 'Apache Kafka';
  readonly serverVersion = undefined;
  readonly admin: Admin;
  #producer: Producer | undefined;
  #chooser: PartitionChooser | undefined;
  #reader: GroupReader | undefined;
  readonly #children = new Set<{ close(): Promise<void> }>();

  constructor(
    readonly brokers: readonly string[],
    readonly timeoutMs: number,
    readonly clientId: string,
  ) {
    this.admin = new Admin({ clientId, bootstrapBrokers: [...brokers], timeout: timeoutMs });
  }

  get address(): string {
    return formatKafkaBootstrap(this.brokers);
  }

  private get context() {
    return {
      clientId: this.clientId,
      bootstrapBrokers: [...this.brokers],
      timeoutMs: this.timeoutMs,
      admin: this.admin,
    };
  }

  createTopic(name: string, partitions: number): Promise<void> {
    return admin.createTopic(this.admin, name, partitions);
  }

  listTopics(): Promise<string[]> {
    return admin.listTopics(this.admin);
  }

  describeTopic(name: string): Promise<TopicDescription> {
    return admin.describeTopic(this.admin, name);
  }

  deleteTopic(name: string): Promise<void> {
    return admin.deleteTopic(this.admin, name);
  }

  alterTopicConfig(name: string, entries: BackendConfigEntries): Promise<void> {
    return admin.alterTopicConfig(this.admin, name, entries);
  }

  createPartitions(name: string, total: number): Promise<void> {
    return admin.createPartitions(this.admin, name, total);
  }

  listOffsets(topic: string, options?: { timestampMs?: bigint | number }): Promise<Offsets> {
    return admin.listOffsets(this.admin, topic, options);
  }

  async produce(topic: string, record: ProducerRecord & BackendProduceOptions): Promise<ProduceAck> {
    const { acks } = await this.produceBatch(
      topic,
      [{ key: record.key, value: record.value, headers: record.headers }],
      record,
    );
    return acks[0]!;
  }

  produceBatch(
    topic: string,
    records: readonly ProducerRecord[],
    options: BackendProduceOptions = {},
  ): Promise<BatchResult> {
    if (!this.#producer) {
      this.#producer = new GuardedProducer({
        clientId: `${this.clientId}-plain`,
        bootstrapBrokers: [...this.brokers],
        timeout: this.timeoutMs,
        acks: ProduceAcks.ALL,
        autocreateTopics: false,
        ...RETRY,
      });
      this.#chooser = new PartitionChooser(this.#producer);
    }
    return sendRecords(this.#chooser!, plainSender(this.#producer), topic, records, options);
  }

  /** Idempotent by default on Kafka (`idempotent: false` for a plain one); producerName is the transactional.id. */
  producer(options: BackendProducerOptions = {}): KafkaProducer {
    const producer = new KafkaProducer(this.context, options);
    this.#children.add(producer);
    return producer;
  }

  /** The accumulator over a plain acks=all producer (kafka-sink.ts); idempotence and transactions: producer(). */
  accumulator(options: ProducerOptions = {}): Accumulator {
    if (options.idempotent === true || options.producerName !== undefined)
      throw new UsageError(
        "the accumulator on Kafka is not idempotent: use producer() for Kafka's idempotent and transactional producer",
      );
    const producer = new Accumulator(new KafkaSink(this.context, options.partition), options);
    this.#children.add(producer);
    return producer;
  }

  async fetch(
    topic: string,
    group: string,
    options: BackendFetchOptions & { batched?: boolean; raw?: boolean } = {},
  ): Promise<BackendFetchResult> {
    if (options.batched === false)
      throw new UnsupportedError(KAFKA_BACKEND, "FETCH's legacy one-RECORD-per-record reply shape");
    if (options.raw) throw new UnsupportedError(KAFKA_BACKEND, 'raw MoonMQ reply frames');
    const reader = await this.readerFor(topic, group, options.isolation ?? 'read_uncommitted');
    return { records: await reader.take(options.maxRecords ?? 100, options.timeoutMs ?? this.timeoutMs) };
  }

  async joinFetchGroup(topic: string, group: string, options: { isolation?: BackendIsolation } = {}): Promise<void> {
    await this.readerFor(topic, group, options.isolation ?? 'read_uncommitted');
  }

  subscribe(topic: string, group: string, options: BackendSubscribeOptions = {}): BackendSubscription {
    const sub = new KafkaSubscription(
      () => GroupReader.open(group, topic, options.isolation ?? 'read_uncommitted', this.context),
      () => this.#children.delete(sub),
    );
    this.#children.add(sub);
    return sub;
  }

  /** A group member of its own: poll() commits past what it returns, commit() moves a partition. */
  async consumer(options: BackendConsumerOptions): Promise<KafkaConsumer> {
    const consumer = await KafkaConsumer.create(options, this.context, (c) => this.#children.delete(c));
    this.#children.add(consumer);
    return consumer;
  }

  /**
   * The batch consumer, unchanged: it fetches as its cursor group through a group member of its own and commits
   * the group's watermarks with transactions of a producer whose transactional.id is `crater-batch.<group>`.
   */
  batchConsumer<T = Buffer>(options: BatchConsumerOptions<T>): BatchConsumer<T> {
    const deps = {
      backend: this,
      openFetcher: (group: string, topics: readonly string[], isolation: BackendIsolation | undefined) =>
        KafkaGroupFetcher.open(group, topics, isolation ?? 'read_uncommitted', this.context),
      producer: (o: BackendProducerOptions) => this.producer(o),
    };
    const consumer: BatchConsumer<T> = new BatchConsumer<T>(deps, options, () => this.#children.delete(consumer));
    this.#children.add(consumer);
    return consumer;
  }

  /** OffsetCommit through the admin client, which Kafka accepts for a group with no live member (else it refuses). */
  async storeGroupOffsets(group: string, offsets: readonly BackendTransactionOffset[]): Promise<void> {
    const byTopic = new Map<string, { partition: number; offset: bigint }[]>();
    for (const o of offsets)
      byTopic.set(o.topic, [...(byTopic.get(o.topic) ?? []), { partition: o.partition, offset: o.offset }]);
    for (const [topic, list] of byTopic) await admin.alterGroupOffsets(this.admin, group, topic, list);
  }

  async commit(topic: string, partition: number, offset: bigint): Promise<void> {
    const reader = this.#reader;
    if (!reader || reader.topic !== topic)
      throw new UsageError(`commit on Kafka needs a fetch of ${topic} first (it commits for the group fetched as)`);
    await reader.commitAt([{ partition, offset }]);
  }

  nack(_topic: string, _partition: number, _offset: bigint, _reason: string): Promise<NackAck> {
    return Promise.reject(
      new UnsupportedError(
        KAFKA_BACKEND,
        'NACK (MoonMQ rejects single records; Kafka has no per-record negative acknowledgement)',
      ),
    );
  }

  listGroups(): Promise<GroupListing[]> {
    return admin.listGroups(this.admin);
  }

  /** After the commits of this backend's fetches as `groupId` have landed (they are sent in the background). */
  async describeGroup(groupId: string): Promise<GroupDescription> {
    if (this.#reader?.group === groupId) await this.#reader.settle();
    return admin.describeGroup(this.admin, groupId);
  }

  /** Leaves the group first when this backend is its member, since Kafka refuses to delete a group with members. */
  async deleteGroup(groupId: string): Promise<void> {
    if (this.#reader?.group === groupId) {
      await this.#reader.close();
      this.#reader = undefined;
    }
    await admin.deleteGroup(this.admin, groupId);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.#children].map((c) => c.close()));
    await this.#reader?.close();
    this.#reader = undefined;
    await this.#producer?.close().catch(() => undefined);
    await this.admin.close().catch(() => undefined);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private async readerFor(
    topic: string,
    group: string,
    isolation: 'read_uncommitted' | 'read_committed',
  ): Promise<GroupReader> {
    const reader = this.#reader;
    if (reader) {
      if (reader.group !== group || reader.topic !== topic || reader.isolation !== isolation) {
        throw new UsageError(
          `this Kafka client fetches ${reader.topic} as group ${reader.group}; open another client for ${topic} as ${group}`,
        );
      }
      return reader;
    }
    this.#reader = await GroupReader.open(group, topic, isolation, this.context);
    return this.#reader;
  }
}
