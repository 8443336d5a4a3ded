/**
 * The consumer side of one broker: committed offsets, in-memory cursors, groups and their reaper, NACK attempt
 * counts and the push loops. Handlers reach it through `consumerRuntimeOf(broker)`; the broker core sees only the
 * ConsumerRuntime lifecycle (start, stop, onTopicDeleted).
 */
import type { BrokerCore, ConsumerRuntime } from '../core.js';
import type { ConnectionHandle } from '../handler.js';
import { CursorTable } from './cursor-table.js';
import {
  DEFAULT_POLL_BYTES,
  type PolledPartition,
  type PollResult,
  type PollTarget,
  perPartitionAllowance,
  poll,
} from './fetch-poller.js';
import { GroupCoordinator } from './group-coordinator.js';
import { NackTracker } from './nack-tracker.js';
import { CONSUMER_OFFSETS_TOPIC, OffsetStore } from './offset-store.js';
import { PushLoop } from './push-loop.js';
import { ReplyPool } from './reply-pool.js';
import type { PushSource } from './push-source.js';
import { type ConsumeMode, type ConsumerSession, bindConsumer, fixConsumer, sessionOf, subscribe } from './session.js';
import { highWatermark, minOffset } from '../read-ceiling.js';
import type { ConsumerRuntimeOptions } from '../subsystem-options.js';
import type { ReadScratch } from '../../storage/partition-log.js';

export type { ConsumerRuntimeOptions };

/** What a commit or a rewind needs of a polled partition: where its cursor stood and where the poll left it. */
export type DeliveredPartition = Pick<PolledPartition, 'target' | 'nextCursor'>;

export const ConsumerDefaults: Required<ConsumerRuntimeOptions> = {
  sessionTimeoutMs: 30_000,
  reaperIntervalMs: 10_000,
  pushIntervalMs: 50,
  pushBatch: 256,
  maxDeliveries: 3,
  pollBytes: DEFAULT_POLL_BYTES,
  maxGroups: 1_024,
};

const runtimes = new WeakMap<BrokerCore, ConsumerService>();

/** The runtime created for this broker; handlers call this. */
export function consumerRuntimeOf(broker: BrokerCore): ConsumerService {
  const rt = runtimes.get(broker);
  if (!rt) throw new Error('the consumer runtime was not created for this broker');
  return rt;
}

export class ConsumerService implements ConsumerRuntime, PushSource {
  readonly settings: Required<ConsumerRuntimeOptions>;
  readonly groups: GroupCoordinator;
  readonly cursors = new CursorTable();
  readonly nacks = new NackTracker();
  /** FETCH reply buffers, reused once sent (handlers/fetch.ts). */
  readonly replyPool = new ReplyPool();
  /** What pollFor's raw reads fill (PollOptions.scratch). */
  private readonly readScratch: ReadScratch = { buf: Buffer.alloc(0), used: 0, demand: 0 };
  private store: OffsetStore | undefined;
  private reaper: NodeJS.Timeout | undefined;
  private readonly pushLoops = new Set<PushLoop>();
  private readonly topicBytes = new Map<string, Buffer>();
  /** Open connections consuming as each group. */
  private readonly groupUsers = new Map<string, number>();
  /** Per group, the deliveries whose commit waits for their reply to reach the kernel (handlers/fetch.ts). */
  private readonly pendingCommits = new Map<string, Promise<void>>();

  constructor(
    readonly broker: BrokerCore,
    options: ConsumerRuntimeOptions = {},
  ) {
    this.settings = { ...ConsumerDefaults, ...definedOnly(options) };
    this.groups = new GroupCoordinator({
      // The broker's clock (BrokerOptions.clock), which retention, producer expiry and share locks also follow.
      now: () => Number(broker.now()),
      partitionCount: (topic) => broker.topics.getTopic(topic)?.partitions.length,
      sessionTimeoutMs: this.settings.sessionTimeoutMs,
      maxGroups: this.settings.maxGroups,
    });
    runtimes.set(broker, this);
  }

  get offsets(): OffsetStore {
    if (!this.store) throw new Error('the consumer runtime has not started');
    return this.store;
  }

  async start(): Promise<void> {
    this.store = await OffsetStore.open(
      (p) => this.broker.internalLog(CONSUMER_OFFSETS_TOPIC, p),
      () => this.broker.now(),
      this.broker.logger,
    );
    this.reaper = setInterval(() => this.reap(), this.settings.reaperIntervalMs);
    this.reaper.unref();
  }

  async stop(): Promise<void> {
    if (this.reaper) clearInterval(this.reaper);
    this.reaper = undefined;
    const loops = [...this.pushLoops];
    for (const loop of loops) loop.stop();
    await Promise.allSettled(loops.map((l) => l.done));
    await this.store?.flush();
  }

  async onTopicDeleted(name: string): Promise<void> {
    this.cursors.dropTopic(name);
    this.nacks.dropTopic(name);
    this.groups.forgetTopic(name);
    this.topicBytes.delete(name);
    await this.store?.deleteTopic(name);
  }

  reap(): void {
    for (const e of this.groups.reap()) {
      this.broker.logger.info('evicted group member after its session lapsed', {
        group: e.groupId,
        member: e.memberId,
      });
    }
  }

  /** The connection's consumer session; the first call arranges its teardown on close. */
  session(conn: ConnectionHandle): ConsumerSession {
    const fresh = !conn.session.has('consumer');
    const s = sessionOf(conn);
    if (fresh) {
      conn.onClose(() => {
        s.push?.stop();
        this.groups.removeOwner(conn);
        if (s.group !== undefined) this.release(s.group);
      });
    }
    return s;
  }

  /**
   * What FETCH and SUBSCRIBE do first: check the connection's mode, group and isolation (ERR 8 on a mismatch), require
   * the topic (ERR 5), fix the mode, group and isolation, and add the topic to the connection's subscriptions.
   */
  enter(
    conn: ConnectionHandle,
    mode: ConsumeMode,
    req: { topic: string; group: string; isolation?: number | undefined },
  ): ConsumerSession {
    const s = this.session(conn);
    bindConsumer(s, mode, req.group, req.isolation);
    this.broker.topics.requireTopic(req.topic);
    this.fix(s, mode, req.group, req.isolation);
    subscribe(s, req.topic);
    return s;
  }

  /** Records the mode, group and isolation a first FETCH or SUBSCRIBE fixed (after `bindConsumer` accepted them). */
  fix(s: ConsumerSession, mode: ConsumeMode, group: string, isolation: number | undefined): void {
    if (s.group === undefined) this.groupUsers.set(group, (this.groupUsers.get(group) ?? 0) + 1);
    fixConsumer(s, mode, group, isolation);
  }

  /**
   * Cursors are shared by the connections consuming as one group and forgotten when the last of them closes, so a
   * consumer that reconnects starts from the committed offset (which COMMIT may have moved), as on MoonMQ.
   */
  private release(group: string): void {
    const n = (this.groupUsers.get(group) ?? 1) - 1;
    if (n > 0) {
      this.groupUsers.set(group, n);
      return;
    }
    this.groupUsers.delete(group);
    this.cursors.dropGroup(group);
  }

  /** The group's read position: the in-memory cursor, else the committed offset, else 0. */
  position(group: string, topic: string, partition: number): bigint {
    return this.cursors.get(group, topic, partition) ?? this.offsets.get(group, topic, partition) ?? 0n;
  }

  /** True when the connection joined a group and its membership has since lapsed (evicted). */
  membershipLapsed(conn: ConnectionHandle, s: ConsumerSession): boolean {
    const m = s.membership;
    return m !== undefined && !this.groups.isMember(m.groupId, m.memberId, conn);
  }

  /**
   * The partitions the connection reads: every subscribed topic's partitions, narrowed to its assignment when it
   * joined the group it consumes as (nothing at all once that membership lapsed).
   */
  targets(conn: ConnectionHandle, s: ConsumerSession): PollTarget[] {
    const group = s.group!;
    let owned: Map<string, number[]> | undefined;
    const m = s.membership;
    if (m && m.groupId === group) {
      owned = this.groups.isMember(m.groupId, m.memberId, conn)
        ? this.groups.assignmentOf(m.groupId, m.memberId)
        : new Map();
    }
    const targets: PollTarget[] = [];
    for (const name of s.topics) {
      const topic = this.broker.topics.getTopic(name);
      if (!topic) continue;
      const topicBytes = this.bytesOf(name);
      const ids = owned ? (owned.get(name) ?? []) : topic.partitions.map((_, i) => i + 1);
      for (const partition of ids) {
        const log = topic.partitions[partition - 1];
        if (!log) continue;
        const txns = this.broker.transactions;
        const hwm = highWatermark(this.broker.config.acks, log);
        targets.push({
          topic: name,
          topicBytes,
          partition,
          log,
          cursor: this.position(group, name, partition),
          // Reads stop at the durable end (read-ceiling.ts); read_committed also at the LSO, and it skips aborted
          // transactional records (semantics.md §10).
          ceiling: s.readCommitted ? minOffset(hwm, txns.lso(name, partition, log)) : hwm,
          isAborted: s.readCommitted ? txns.abortFilter(name, partition) : undefined,
        });
      }
    }
    if (targets.length > 1) {
      const shift = s.rotation++ % targets.length;
      if (shift > 0) targets.push(...targets.splice(0, shift));
    }
    return targets;
  }

  /** One poll for the connection. Its raw runs view a scratch the next pollFor reuses: encode them before then. */
  pollFor(conn: ConnectionHandle, s: ConsumerSession, maxRecords: number): PollResult {
    const targets = this.targets(conn, s);
    return poll(targets, {
      maxRecords,
      allowance: perPartitionAllowance(maxRecords, targets.length),
      maxBytes: this.replyBytes(),
      framed: true,
      raw: true,
      scratch: this.readScratch,
    });
  }

  /**
   * The reply bytes one poll may produce: the poll budget, and at most half the per-connection send cap, so a reply
   * written behind a drained queue never trips the cap by itself (the first record alone may pass it, by at most
   * one frame's worth).
   */
  replyBytes(): number {
    return Math.min(this.settings.pollBytes, Math.floor(this.broker.config.maxPendingSendBytes / 2));
  }

  /** Moves the group's cursors past what was handed to the send layer. */
  advance(group: string, parts: readonly PolledPartition[]): void {
    for (const p of parts) this.cursors.set(group, p.target.topic, p.target.partition, p.nextCursor);
  }

  /**
   * Undoes `advance` for records that never reached the socket: the cursor goes back to the first of them unless it
   * is already at or below it (a NACK or a rewind of an earlier reply got there first). Replies dropped together
   * with their connection rewind in request order, so "only if still at nextCursor" would leave the cursor past an
   * earlier dropped reply; moving back whenever the cursor is beyond is at-least-once either way.
   */
  rewind(group: string, parts: readonly DeliveredPartition[]): void {
    for (const p of parts) {
      const { topic, partition } = p.target;
      const current = this.cursors.get(group, topic, partition);
      if (current !== undefined && current > p.target.cursor)
        this.cursors.set(group, topic, partition, p.target.cursor);
    }
  }

  /**
   * Commits `parts` once `delivered` says their reply reached the kernel, or rewinds them when it never did, in
   * delivery order per group. The commit is applied at once and written by the store's next delivery flush
   * (OffsetStore.deliver): nothing here waits for an fsync, so the group's next FETCH is never held back by one.
   */
  commitOnDelivery(group: string, polled: readonly PolledPartition[], delivered: Promise<void>): void {
    // Only where each partition stood and ends: the records and values (views of whole read chunks) must not live
    // as long as the commit chain.
    const parts: DeliveredPartition[] = polled.map((p) => ({ target: p.target, nextCursor: p.nextCursor }));
    const previous = this.pendingCommits.get(group);
    const done: Promise<void> = (previous ? Promise.all([previous, delivered]) : delivered)
      .then(
        () => this.deliverCommits(group, parts),
        () => this.rewind(group, parts),
      )
      .finally(() => {
        if (this.pendingCommits.get(group) === done) this.pendingCommits.delete(group);
      });
    this.pendingCommits.set(group, done);
  }

  /**
   * Resolves once every delivery of `group` so far is committed (or rewound) and durable (it starts the delivery
   * flush rather than waiting for its interval); undefined when nothing is pending. Never rejects: a failed write
   * was logged by the store.
   */
  commitsSettled(group: string): Promise<void> | undefined {
    const pending = this.pendingCommits.get(group);
    if (!pending && !this.offsets.deliveriesPending) return undefined;
    const flush = (): Promise<void> => this.offsets.flushDelivered().catch(() => undefined);
    return pending ? pending.then(flush) : flush();
  }

  /**
   * One commit per partition whose cursor differs from its committed offset, applied now and written by the next
   * delivery flush (whose failures the store logs). Resolves at once.
   */
  commitDelivered(group: string, parts: readonly DeliveredPartition[]): Promise<void> {
    this.deliverCommits(group, parts);
    return Promise.resolve();
  }

  private deliverCommits(group: string, parts: readonly DeliveredPartition[]): void {
    const offsets = this.offsets;
    for (const p of parts) {
      const { topic, partition } = p.target;
      if (offsets.get(group, topic, partition) !== p.nextCursor) offsets.deliver(group, topic, partition, p.nextCursor);
    }
  }

  /** Starts (once per connection) the push loop that serves SUBSCRIBE. */
  startPush(conn: ConnectionHandle, s: ConsumerSession): void {
    if (s.push || conn.closed) return;
    const loop = new PushLoop(this, conn, s);
    s.push = loop;
    this.pushLoops.add(loop);
    void loop.done.finally(() => this.pushLoops.delete(loop));
  }

  bytesOf(topic: string): Buffer {
    let b = this.topicBytes.get(topic);
    if (!b) this.topicBytes.set(topic, (b = Buffer.from(topic)));
    return b;
  }
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
