/**
 * The client: one authenticated connection for admin, produce, fetch and commit, plus a connection of its own for
 * each subscription and consumer (a connection is pull or push, never both, and its group is fixed by its first
 * FETCH or SUBSCRIBE: wire.md §2.5). Every call returns a promise; offsets are bigint, partitions 1-based.
 */
import { UsageError } from '../errors.js';
import type { Backend } from './backend.js';
import type { Connection } from './moonmq/connection.js';
import * as admin from './moonmq/admin.js';
import { Consumer, type ConsumerOptions } from './moonmq/consumer.js';
import { BatchConsumer } from './consumer/batch/batch-consumer.js';
import type { BatchConsumerOptions } from './consumer/batch/types.js';
import { fetchRecords, type FetchOptions, type FetchResult } from './moonmq/fetch-ops.js';
import { MoonmqGroupFetcher } from './moonmq/group-fetcher.js';
import { GroupMembership, type GroupAssignment, type JoinGroupOptions } from './moonmq/group-membership.js';
import {
  produce,
  produceBatch,
  prepareProduceBatch,
  type BatchResult,
  type PreparedBatch,
  type ProduceAck,
  type ProduceOptions,
  type ProducerRecord,
} from './moonmq/produce-ops.js';
import { DirectSink } from './moonmq/direct-sink.js';
import { IdempotentSink } from './moonmq/idempotent-sink.js';
import { Producer, type ProducerOptions, wantsIdempotence } from './producer/producer.js';
import {
  openSession,
  type ConnectOptions,
  type IsolationName,
  type ServerIdentity,
  type Session,
} from './moonmq/session.js';
import { Subscription, type SubscribeOptions } from './moonmq/subscription.js';
import { ShareConsumer, type ShareConsumerOptions } from './moonmq/share-consumer.js';
import * as share from './moonmq/share-ops.js';

/** What a client reports besides its return values (a typed union, one listener for all). */
export type ClientEvent =
  { type: 'heartbeat-failed'; groupId: string; error: Error } | { type: 'closed'; error: Error | undefined };

export type ClientListener = (event: ClientEvent) => void;

/** Connects, greets, identifies and authenticates (AUTH is sent in open mode too). */
export async function connect(options: ConnectOptions): Promise<Client> {
  return new Client(await openSession(options), options);
}

/** The MoonMQ-protocol backend (backend.ts): partitions 1-based, offsets as the broker's cursors. */
export class Client implements Backend {
  readonly kind = 'moonmq' as const;
  readonly firstPartition = 1 as const;
  private readonly listeners = new Set<ClientListener>();
  private membership: GroupMembership | undefined;
  private readonly children = new Set<Subscription | Consumer | ShareConsumer | { close(): Promise<void> }>();
  /** Groups with a consumer in this client, and which kind: the seed's registration rules are checked against it. */
  private readonly groupKinds = new Map<string, { kind: 'batch' | 'single'; count: number }>();
  private closing = false;

  /** @internal: the main authenticated connection, for sinks and tools built on this client. */
  constructor(
    readonly session: Session,
    private readonly connectOptions: ConnectOptions,
  ) {
    session.conn.onClose((error) => {
      this.membership?.stop();
      this.emit({ type: 'closed', error });
    });
  }

  get connection(): Connection {
    return this.session.conn;
  }

  /** `host:port` of the broker. */
  get address(): string {
    return this.session.conn.label;
  }

  get server(): ServerIdentity {
    return this.session.server;
  }

  /** True when the broker identified itself as crater, which is what allows the extensions (headers). */
  get isCrater(): boolean {
    return this.session.server.isCrater;
  }

  /** MoonMQ's protocol carries headers only as a crater extension. */
  get supportsHeaders(): boolean {
    return this.session.server.isCrater;
  }

  get serverName(): string | undefined {
    return this.session.server.name;
  }

  get serverVersion(): string | undefined {
    return this.session.server.version;
  }

  on(listener: ClientListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // Topics

  createTopic(name: string, partitions: number): Promise<void> {
    return admin.createTopic(this.session.conn, name, partitions);
  }

  listTopics(): Promise<string[]> {
    return admin.listTopics(this.session.conn);
  }

  describeTopic(name: string): Promise<admin.TopicDescription> {
    return admin.describeTopic(this.session.conn, name);
  }

  deleteTopic(name: string): Promise<void> {
    return admin.deleteTopic(this.session.conn, name);
  }

  alterTopicConfig(name: string, entries: admin.ConfigEntries): Promise<void> {
    return admin.alterTopicConfig(this.session.conn, name, entries);
  }

  createPartitions(name: string, total: number): Promise<void> {
    return admin.createPartitions(this.session.conn, name, total);
  }

  listOffsets(topic: string, options?: admin.ListOffsetsOptions): Promise<admin.Offsets> {
    return admin.listOffsets(this.session.conn, topic, options);
  }

  // Producing

  produce(topic: string, record: ProducerRecord & ProduceOptions): Promise<ProduceAck> {
    return produce(this.session, topic, record, record);
  }

  /** Acks for the landed prefix plus, on a partial append, its error; a failure before anything landed throws. */
  produceBatch(topic: string, records: readonly ProducerRecord[], options?: ProduceOptions): Promise<BatchResult> {
    return produceBatch(this.session, topic, records, options);
  }

  /** produceBatch's checks and encoding now, its request on `send()`: encode the next batch while one is in flight. */
  prepareBatch(topic: string, records: readonly ProducerRecord[], options?: ProduceOptions): PreparedBatch {
    return prepareProduceBatch(this.session, topic, records, options);
  }

  /** An idempotent producer (`idempotent`, `producerName`) opens a connection of its own, reconnecting after a loss. */
  producer(options: ProducerOptions = {}): Producer {
    if (!wantsIdempotence(options)) return new Producer(new DirectSink(this.session, options.partition), options);
    if (options.partition !== undefined)
      throw new UsageError("a fixed partition cannot be combined with an idempotent producer on MoonMQ's protocol");
    const sink = new IdempotentSink(undefined, {
      producerName: options.producerName,
      reconnect: () => openSession(this.connectOptions),
    });
    return new Producer(sink, options);
  }

  /** The accumulator: on MoonMQ's protocol every producer() is one. */
  accumulator(options: ProducerOptions = {}): Producer {
    return this.producer(options);
  }

  // Consuming

  /** One FETCH on this client's connection (which becomes a pull connection bound to `group`). */
  fetch(topic: string, group: string, options?: FetchOptions): Promise<FetchResult> {
    return fetchRecords(this.session, topic, group, options);
  }

  /** Pushed records on a new connection; leaving `for await` closes it. */
  subscribe(topic: string, group: string, options?: SubscribeOptions): Subscription {
    this.assertOpen();
    const sub = new Subscription(
      () => openSession(this.connectOptions),
      topic,
      group,
      options,
      (s) => this.children.delete(s),
    );
    this.children.add(sub);
    return sub;
  }

  /** A pull consumer on a new connection; close it (or dispose it) when done. */
  async consumer(options: ConsumerOptions): Promise<Consumer> {
    this.assertOpen();
    const release = this.registerGroup(options.group, 'single');
    let consumer: Consumer;
    try {
      consumer = await Consumer.create(await openSession(this.connectOptions), options, (c) => {
        this.children.delete(c);
        release();
      });
    } catch (error) {
      release();
      throw error;
    }
    this.children.add(consumer);
    return consumer;
  }

  /**
   * A batch consumer (seed 003): call run(handler), then stop() or dispose it. Refused at construction when this
   * client already has a batch consumer, or a single-record consumer, on the same group.
   */
  batchConsumer<T = Buffer>(options: BatchConsumerOptions<T>): BatchConsumer<T> {
    this.assertOpen();
    const release = this.registerGroup(options.group, 'batch');
    let consumer: BatchConsumer<T>;
    try {
      const deps = {
        backend: this,
        openFetcher: async (group: string, _topics: readonly string[], isolation: IsolationName | undefined) =>
          new MoonmqGroupFetcher(await openSession(this.connectOptions), group, isolation),
        producer: (o: ProducerOptions) => this.producer(o),
      };
      consumer = new BatchConsumer(deps, options, () => {
        this.children.delete(consumer);
        release();
      });
    } catch (error) {
      release();
      throw error;
    }
    this.children.add(consumer);
    return consumer;
  }

  /** A share-group consumer (crater brokers only) on a new connection; close it (or dispose it) when done. */
  async shareConsumer(options: ShareConsumerOptions): Promise<ShareConsumer> {
    this.assertOpen();
    share.requireShareSupport(this.session);
    const consumer = await ShareConsumer.create(await openSession(this.connectOptions), options, (c) =>
      this.children.delete(c),
    );
    this.children.add(consumer);
    return consumer;
  }

  /** Share-group administration on this connection (crater brokers only): describe, alter, reset, list. */
  get shareGroups(): share.ShareGroupAdmin {
    return share.shareGroupAdmin(this.session);
  }

  /** Stores `offset` (the next record to read); this connection must have fetched first. */
  commit(topic: string, partition: number, offset: bigint): Promise<void> {
    return admin.commit(this.session.conn, topic, partition, offset);
  }

  /** Rejects a record by its own offset, for the group this connection fetched as. */
  nack(topic: string, partition: number, offset: bigint, reason: string): Promise<admin.NackAck> {
    return admin.nack(this.session.conn, topic, partition, offset, reason);
  }

  // Groups

  /** Joins `groupId` on this connection and heartbeats every ~3 s until leaveGroup() or close(). */
  async joinGroup(
    groupId: string,
    topics: readonly string[],
    options: JoinGroupOptions = {},
  ): Promise<GroupAssignment> {
    if (this.membership && this.membership.groupId !== groupId) {
      throw new UsageError(`this connection is a member of '${this.membership.groupId}'; leave it first`);
    }
    this.membership?.stop();
    this.membership = await GroupMembership.join(this.session.conn, groupId, topics, {
      ...options,
      onHeartbeatError: (error) => {
        options.onHeartbeatError?.(error);
        this.emit({ type: 'heartbeat-failed', groupId, error });
      },
    });
    return this.membership.assignment;
  }

  async leaveGroup(groupId?: string): Promise<void> {
    const membership = this.membership;
    if (!membership) throw new UsageError('this connection has not joined a group');
    if (groupId !== undefined && groupId !== membership.groupId) {
      throw new UsageError(`this connection is a member of '${membership.groupId}', not '${groupId}'`);
    }
    this.membership = undefined;
    await membership.leave();
  }

  listGroups(): Promise<admin.GroupListing[]> {
    return admin.listGroups(this.session.conn);
  }

  describeGroup(groupId: string): Promise<admin.GroupDescription> {
    return admin.describeGroup(this.session.conn, groupId);
  }

  deleteGroup(groupId: string): Promise<void> {
    return admin.deleteGroup(this.session.conn, groupId);
  }

  /** Stops heartbeats, closes every subscription and consumer this client opened, then its own connection. */
  async close(): Promise<void> {
    this.closing = true;
    this.membership?.stop();
    await Promise.allSettled([...this.children].map((c) => c.close()));
    await this.session.conn.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Applies the registration rules; the returned function releases the group (idempotent). */
  private registerGroup(group: string, kind: 'batch' | 'single'): () => void {
    const held = this.groupKinds.get(group);
    if (held && held.kind === 'batch') {
      throw new UsageError(
        `group '${group}' already has a batch consumer in this client: one batch consumer per group, and no other consumer beside it`,
      );
    }
    if (held && kind === 'batch') {
      throw new UsageError(
        `group '${group}' already has a single-record consumer in this client; a batch consumer needs a group of its own`,
      );
    }
    const entry = held ?? { kind, count: 0 };
    entry.count++;
    this.groupKinds.set(group, entry);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--entry.count === 0) this.groupKinds.delete(group);
    };
  }

  private assertOpen(): void {
    if (this.closing || this.session.conn.closed) throw new UsageError(`the client for ${this.address} is closed`);
  }

  private emit(event: ClientEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
