/**
 * MoonMQ's pull consumer (the backend seam's BackendConsumer; kafka/kafka-consumer.ts is Kafka's), on a connection
 * of its own (seed 000, "Consumer side"). poll() is one FETCH: its max_records is the total, and the broker gives
 * each partition it reads max(1, ceil(max_records / P)). A caller's maxPerPartition is honoured by sending
 * min(maxRecords, maxPerPartition × P), with P the partitions this poll reads (the group assignment when joined, else
 * every partition of the subscribed topics). Records cannot be trimmed client-side: the broker has already committed
 * past everything it sent.
 *
 * The first poll FETCHes every topic once, because a FETCH subscribes the connection to its topic and then reads
 * all topics subscribed so far; that first poll can therefore return more than its cap.
 *
 * A joined consumer follows its group's rebalances (rebalance.ts): it checks its share every rebalanceCheckMs and
 * applies a change before its next poll, telling onRebalance what was revoked and assigned. A heartbeat, COMMIT or
 * NACK answered with a code whose rule is `rejoin` (protocol/error-codes.ts: the membership lapsed) starts that
 * check at once, which joins again under the same member id; the COMMIT or NACK is then resent when the rejoin gave
 * its partition back (the broker refused it before it took effect), else its error stands: the partition is another
 * member's now.
 */
import { UsageError } from '../../errors.js';
import type { FetchedRecord } from '../../protocol/messages/fetch.js';
import type { NackAck } from '../../protocol/messages/nack.js';
import type { IsolationLevel } from '../../protocol/opcodes.js';
import { BrokerError } from '../../errors.js';
import { ErrorCode, needsRejoin } from '../../protocol/error-codes.js';
import { commit, describeGroup, describeTopic, nack } from './admin.js';
import { fetchRecords } from './fetch-ops.js';
import {
  DEFAULT_GROUP_HEARTBEAT_MS,
  GroupMembership,
  type GroupAssignment,
  type JoinGroupOptions,
} from './group-membership.js';
import type { IsolationName, Session } from './session.js';
import { validateTopicName } from '../validate.js';
import { assignmentDiff, type RebalanceEvent, type RebalanceListener } from './rebalance.js';

export type { RebalanceEvent, RebalanceListener, TopicPartition } from './rebalance.js';

export interface ConsumerOptions {
  group: string;
  topics: string | readonly string[];
  isolation?: IsolationName | IsolationLevel;
  /** Ask for RECORD_BATCH replies (default true). */
  batched?: boolean;
  /** Ask for record headers (crater brokers only). */
  headers?: boolean;
  /** Join the group for a range assignment of partitions, with heartbeats, before the first poll. */
  join?: boolean | JoinGroupOptions;
  /** How long the async iterator waits after an empty poll before polling again (default 100 ms). */
  idleWaitMs?: number;
  /** How long a cached partition count is trusted (default 10 s). */
  metadataMaxAgeMs?: number;
  /** Joined: called (and awaited) before the first poll after this member's share changed. */
  onRebalance?: RebalanceListener;
  /** Joined: how often the share is checked (DESCRIBE_GROUP), default 3 s; 0 checks only on checkAssignment(). */
  rebalanceCheckMs?: number;
}

export interface PollOptions {
  /** Records to take from one partition per poll. Default 1 when maxRecords is not given either. */
  maxPerPartition?: number;
  /** Hard total for the poll. */
  maxRecords?: number;
  timeoutMs?: number;
}

export class Consumer implements AsyncIterable<FetchedRecord>, AsyncDisposable {
  readonly group: string;
  readonly topics: readonly string[];
  private membership: GroupMembership | undefined;
  private subscribed = false;
  private closed = false;
  private readonly partitionCounts = new Map<string, { count: number; at: number }>();
  private wakeIdle: (() => void) | undefined;
  private observedGeneration = 0;
  private pending: GroupAssignment | undefined;
  private checking: Promise<boolean> | undefined;
  private checkTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly session: Session,
    private readonly options: ConsumerOptions,
    private readonly onClosed?: (c: Consumer) => void,
  ) {
    this.group = options.group;
    this.topics = typeof options.topics === 'string' ? [options.topics] : [...options.topics];
  }

  /** Takes ownership of `session` (closed with the consumer, also when joining fails). */
  static async create(session: Session, options: ConsumerOptions, onClosed?: (c: Consumer) => void): Promise<Consumer> {
    const consumer = new Consumer(session, options, onClosed);
    try {
      if (consumer.topics.length === 0) throw new UsageError('a consumer needs at least one topic');
      for (const t of consumer.topics) validateTopicName(t);
      if (options.join) {
        consumer.membership = await GroupMembership.join(
          session.conn,
          options.group,
          consumer.topics,
          consumer.joinOptions(),
        );
        consumer.observedGeneration = 1;
        consumer.scheduleCheck();
      }
    } catch (error) {
      await consumer.close();
      throw error;
    }
    return consumer;
  }

  /** The partitions this member owns, when it joined its group. */
  get assignment(): GroupAssignment | undefined {
    return this.membership?.assignment;
  }

  /** Joined: how many assignments this consumer has observed (1 after the JOIN, one more per change). */
  get generation(): number {
    return this.observedGeneration;
  }

  /**
   * Joined: compares this member's share in a DESCRIBE_GROUP with the one held (joining again when the broker no
   * longer knows the member); true when a change is waiting for the next poll.
   */
  checkAssignment(): Promise<boolean> {
    this.checking ??= this.describeShare().finally(() => (this.checking = undefined));
    return this.checking;
  }

  async poll(options: PollOptions = {}): Promise<FetchedRecord[]> {
    if (this.closed) throw new UsageError('poll on a closed consumer');
    await this.applyRebalance();
    const maxRecords = await this.maxRecordsFor(options);
    const fetchOptions = {
      maxRecords,
      batched: this.options.batched,
      isolation: this.options.isolation,
      headers: this.options.headers,
      timeoutMs: options.timeoutMs,
    };
    if (this.subscribed) {
      return (await fetchRecords(this.session, this.topics[0]!, this.group, fetchOptions)).records;
    }
    const records: FetchedRecord[] = [];
    for (const topic of this.topics) {
      records.push(...(await fetchRecords(this.session, topic, this.group, fetchOptions)).records);
    }
    this.subscribed = true;
    return records;
  }

  /** `offset` is the next record to read (a record's own offset would deliver it again). */
  commit(topic: string, partition: number, offset: bigint): Promise<void> {
    return this.asMember(topic, partition, () => commit(this.session.conn, topic, partition, offset));
  }

  /** Rejects a record by its own offset: redelivered, or dead-lettered after the broker's max deliveries. */
  nack(topic: string, partition: number, offset: bigint, reason: string): Promise<NackAck> {
    return this.asMember(topic, partition, () => nack(this.session.conn, topic, partition, offset, reason));
  }

  /** Polls until closed or until the loop is left; each poll uses `options`. */
  async *records(options: PollOptions = {}): AsyncGenerator<FetchedRecord, void, undefined> {
    try {
      while (!this.closed) {
        const batch = await this.poll(options);
        for (const record of batch) yield record;
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- `closed` is changed during the await above; TypeScript keeps the narrowing across it (TypeScript#9998)
        if (batch.length === 0 && !this.closed) await this.idle();
      }
    } finally {
      await this.close();
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<FetchedRecord> {
    return this.records({ maxRecords: 100 });
  }

  /** Leaves the group (when joined) and closes the connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.checkTimer);
    this.wakeIdle?.();
    this.onClosed?.(this);
    if (this.membership && !this.session.conn.closed) {
      await this.membership.leave().catch(() => {});
    }
    this.membership?.stop();
    await this.session.conn.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** The JOIN_GROUP options: the caller's, with a heartbeat whose lapsed membership starts a rejoin. */
  private joinOptions(memberId?: string): JoinGroupOptions {
    const options = this.options.join === true || !this.options.join ? {} : this.options.join;
    return {
      ...options,
      ...(memberId === undefined ? {} : { memberId }),
      onHeartbeatError: (error) => {
        options.onHeartbeatError?.(error);
        if (!(error instanceof BrokerError) || !needsRejoin(error.errorCode)) return;
        void this.checkAssignment()
          .catch(() => false)
          .then((changed) => changed && this.wakeIdle?.());
      },
    };
  }

  /**
   * Runs a group request; when its code says the membership lapsed, rejoins and resends it once if the partition
   * is this member's again (the broker checks membership before the request takes effect).
   */
  private async asMember<T>(topic: string, partition: number, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      if (!this.membership || !(error instanceof BrokerError) || !needsRejoin(error.errorCode)) throw error;
      await this.checkAssignment();
      const share = (this.pending ?? this.membership.assignment).topics;
      if (!share.some((t) => t.topic === topic && t.partitions.includes(partition))) throw error;
      return request();
    }
  }

  private scheduleCheck(): void {
    const every = this.options.rebalanceCheckMs ?? DEFAULT_GROUP_HEARTBEAT_MS;
    if (every <= 0 || this.closed) return;
    this.checkTimer = setTimeout(() => {
      void this.checkAssignment()
        .catch(() => false)
        .then((changed) => {
          if (changed) this.wakeIdle?.();
          this.scheduleCheck();
        });
    }, every);
  }

  private async describeShare(): Promise<boolean> {
    const membership = this.membership;
    if (!membership || this.closed) return false;
    const held = this.pending ?? membership.assignment;
    const description = await describeGroup(this.session.conn, this.group).catch((error: unknown) => {
      if (error instanceof BrokerError && error.errorCode === ErrorCode.GROUP_MISSING) return undefined;
      throw error;
    });
    const mine = description?.members.find((m) => m.memberId === membership.memberId);
    let now: GroupAssignment;
    if (mine) now = { memberId: mine.memberId, topics: mine.topics };
    else {
      // Evicted (or the group was deleted): join again under the same id; the JOIN's reply is the new share.
      membership.stop();
      this.membership = await GroupMembership.join(
        this.session.conn,
        this.group,
        this.topics,
        this.joinOptions(membership.memberId),
      );
      now = this.membership.assignment;
      this.membership.assignment = held;
    }
    const { revoked, assigned } = assignmentDiff(held.topics, now.topics);
    if (revoked.length === 0 && assigned.length === 0) return this.pending !== undefined;
    this.pending = now;
    return true;
  }

  /** Adopts a share checkAssignment() found and tells the listener, before the next FETCH. */
  private async applyRebalance(): Promise<void> {
    const next = this.pending;
    if (!next || !this.membership) return;
    this.pending = undefined;
    const { revoked, assigned } = assignmentDiff(this.membership.assignment.topics, next.topics);
    this.membership.assignment = next;
    this.observedGeneration++;
    const event: RebalanceEvent = { generation: this.observedGeneration, assignment: next, revoked, assigned };
    await this.options.onRebalance?.(event);
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.options.idleWaitMs ?? 100);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wakeIdle = done;
    });
  }

  private async maxRecordsFor(options: PollOptions): Promise<number> {
    const { maxPerPartition, maxRecords } = options;
    for (const [field, v] of [
      ['maxPerPartition', maxPerPartition],
      ['maxRecords', maxRecords],
    ] as const) {
      if (v !== undefined && (!Number.isInteger(v) || v < 1 || v > 0xffff_ffff)) {
        throw new UsageError(`${field} must be a positive integer, got ${v}`);
      }
    }
    if (maxPerPartition === undefined && maxRecords !== undefined) return maxRecords;
    const partitions = await this.partitionsRead();
    const perPartitionTotal = (maxPerPartition ?? 1) * partitions;
    return maxRecords === undefined ? perPartitionTotal : Math.min(maxRecords, perPartitionTotal);
  }

  private async partitionsRead(): Promise<number> {
    // The share last applied; a rebalance not observed yet may have moved partitions, so an empty share still
    // polls (for one record) rather than never fetching again.
    if (this.membership) return Math.max(1, this.membership.partitionCount);
    const maxAge = this.options.metadataMaxAgeMs ?? 10_000;
    let total = 0;
    for (const topic of this.topics) {
      let cached = this.partitionCounts.get(topic);
      if (!cached || Date.now() - cached.at > maxAge) {
        cached = { count: (await describeTopic(this.session.conn, topic)).partitionCount, at: Date.now() };
        this.partitionCounts.set(topic, cached);
      }
      total += cached.count;
    }
    return total;
  }
}
