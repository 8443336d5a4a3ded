/**
 * The share-group side of one broker (crater extension, docs/extensions.md): groups, members, the in-flight windows
 * and their persistence in `__share_group_state`. Handlers reach it through `shareRuntimeOf(broker)`. Lock deadlines
 * and member sessions run on the broker clock (`broker.now()`, replaceable in tests); a sweeper timer finds lapsed
 * members and expired locks when no request arrives.
 */
import { randomUUID } from 'node:crypto';
import { ErrorCode } from '../../protocol/error-codes.js';
import type { ShareAck, ShareAckResults } from '../../protocol/messages/share-ack.js';
import type { ShareFetch } from '../../protocol/messages/share-fetch.js';
import type { ShareMember } from '../../protocol/messages/share-join.js';
import { SHARE_STATE_PARTITIONS, SHARE_STATE_TOPIC } from '../../storage/share-state-codec.js';
import type { BrokerCore } from '../core.js';
import { type ConnectionHandle, HandlerError } from '../handler.js';
import { acquire } from './acquire.js';
import { applyAcks, validateAcks } from './acks.js';
import { type ShareGroupConfig, type ShareOptions, ShareConfigDefaults, ShareOptionDefaults } from './config.js';
import { deadLetter } from './dlq.js';
import type { ShareFetchResult } from './record-frames.js';
import { ShareGroup, type ShareMemberState } from './share-group.js';
import { type ArchivedNote, SharePartition } from './share-partition.js';
import { ShareStore, replayShareState } from './share-store.js';
import { StateFlusher } from './state-flusher.js';

const SESSION_SHARE_MEMBERS = 'share-members';
const runtimes = new WeakMap<BrokerCore, ShareRuntime>();

export function shareRuntimeOf(broker: BrokerCore): ShareRuntime {
  const rt = runtimes.get(broker);
  if (!rt) throw new Error('the share runtime was not created for this broker');
  return rt;
}

export class ShareRuntime {
  readonly groups = new Map<string, ShareGroup>();
  readonly defaults: ShareGroupConfig;
  readonly settings: {
    sessionTimeoutMs: number;
    heartbeatIntervalMs: number;
    sweepIntervalMs: number;
    waitPollMs: number;
  };
  private store: ShareStore | undefined;
  private readonly flushers = new WeakMap<ShareGroup, StateFlusher>();
  private sweeper: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private quiescing = false;

  private constructor(
    readonly broker: BrokerCore,
    options: ShareOptions,
  ) {
    this.defaults = { ...ShareConfigDefaults, ...options.defaults };
    const { defaults: _defaults, ...timers } = options;
    this.settings = { ...ShareOptionDefaults, ...definedOnly(timers) };
    runtimes.set(broker, this);
  }

  /** Replays `__share_group_state` when it exists (it is created on the first share write) and starts the sweeper. */
  static async open(broker: BrokerCore, options: ShareOptions = {}): Promise<ShareRuntime> {
    const rt = new ShareRuntime(broker, options);
    const topic = broker.topics.getTopic(SHARE_STATE_TOPIC);
    if (topic) {
      rt.store = new ShareStore(topic.partitions, () => broker.now());
      rt.restore(replayShareState(topic.partitions));
    }
    rt.sweeper = setInterval(() => rt.sweepInBackground(), rt.settings.sweepIntervalMs);
    rt.sweeper.unref();
    return rt;
  }

  now(): number {
    return Number(this.broker.now());
  }

  /** Waiting fetches return at once from here on (the broker is stopping). */
  quiesce(): void {
    this.quiescing = true;
  }

  async stop(): Promise<void> {
    this.quiescing = true;
    clearInterval(this.sweeper);
    await this.sweeping;
    await this.store?.flush();
  }

  group(name: string): ShareGroup | undefined {
    return this.groups.get(name);
  }

  requireGroup(name: string): ShareGroup {
    const g = this.groups.get(name);
    if (!g) throw new HandlerError(ErrorCode.GROUP_MISSING, `share group '${name}' does not exist`);
    return g;
  }

  groupOrNew(name: string): ShareGroup {
    let g = this.groups.get(name);
    if (!g) this.groups.set(name, (g = new ShareGroup(name, this.defaults)));
    return g;
  }

  join(conn: ConnectionHandle, groupName: string, topics: readonly string[]): ShareMember {
    for (const t of topics) this.broker.topics.requireTopic(t);
    const group = this.groupOrNew(groupName);
    const mine = membershipsOf(conn);
    const previous = mine.get(groupName);
    const stale = previous === undefined ? undefined : group.members.get(previous);
    if (stale) this.removeMember(group, stale, []);
    const member: ShareMemberState = {
      id: randomUUID(),
      conn,
      topics: [...new Set(topics)],
      lastSeen: this.now(),
      cursor: 0,
    };
    group.members.set(member.id, member);
    mine.set(groupName, member.id);
    if (!conn.session.has(`${SESSION_SHARE_MEMBERS}:hooked`)) {
      conn.session.set(`${SESSION_SHARE_MEMBERS}:hooked`, true);
      conn.onClose(() => this.connectionClosed(conn));
    }
    return {
      memberId: member.id,
      heartbeatIntervalMs: this.settings.heartbeatIntervalMs,
      sessionTimeoutMs: this.settings.sessionTimeoutMs,
      recordLockDurationMs: group.settings.recordLockDurationMs,
    };
  }

  heartbeat(conn: ConnectionHandle, groupName: string, memberId: string): void {
    this.requireMember(conn, groupName, memberId);
  }

  async leave(conn: ConnectionHandle, groupName: string, memberId: string): Promise<void> {
    const { group, member } = this.requireMember(conn, groupName, memberId);
    const archived: ArchivedNote[] = [];
    this.removeMember(group, member, archived);
    membershipsOf(conn).delete(groupName);
    await this.commit(group, archived);
  }

  async fetch(conn: ConnectionHandle, req: ShareFetch): Promise<ShareFetchResult> {
    const { group, member } = this.requireMember(conn, req.group, req.memberId);
    validateAcks(this.broker, req.acks);
    const archived: ArchivedNote[] = [];
    const results = applyAcks(group, member, req.acks, this.now(), archived);
    let records = acquire(this.broker, group, member, req.maxRecords, this.now(), archived);
    if (records.length === 0 && req.maxWaitMs > 0) {
      await this.commit(group, archived.splice(0));
      const until = Date.now() + req.maxWaitMs;
      while (records.length === 0 && !this.quiescing && !conn.closed && group.members.get(member.id) === member) {
        const left = until - Date.now();
        if (left <= 0) break;
        await new Promise((resolve) => setTimeout(resolve, Math.min(left, this.settings.waitPollMs)));
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- `conn.closed` is changed during the await above; TypeScript keeps the narrowing across it (TypeScript#9998)
        if (conn.closed || group.members.get(member.id) !== member) break;
        member.lastSeen = this.now();
        records = acquire(this.broker, group, member, req.maxRecords, this.now(), archived);
      }
    }
    await this.commit(group, archived);
    return { brokerTimeMs: this.broker.now(), pieces: records, results };
  }

  async ack(conn: ConnectionHandle, req: ShareAck): Promise<ShareAckResults> {
    const { group, member } = this.requireMember(conn, req.group, req.memberId);
    validateAcks(this.broker, req.acks);
    const archived: ArchivedNote[] = [];
    const results = applyAcks(group, member, req.acks, this.now(), archived);
    await this.commit(group, archived);
    return { results };
  }

  async alter(groupName: string, entries: ReadonlyArray<readonly [string, string]>): Promise<void> {
    const group = this.groupOrNew(groupName);
    const overrides = group.alter(entries);
    await (await this.openStore()).writeConfig(groupName, overrides);
  }

  /** Removes lapsed members and expires locks in `group`; persists what changed. */
  async sweepGroup(group: ShareGroup): Promise<void> {
    const now = this.now();
    const archived: ArchivedNote[] = [];
    for (const m of [...group.members.values()]) {
      if (m.lastSeen + this.settings.sessionTimeoutMs <= now) {
        this.removeMember(group, m, archived);
        membershipsOf(m.conn).delete(group.name);
        this.broker.logger.info('share member lapsed', { group: group.name, member: m.id });
      }
    }
    for (const p of group.partitions.values()) p.expire(now, group.settings.deliveryCountLimit, archived);
    await this.commit(group, archived);
  }

  /**
   * DLQ copies first (when enabled), then the group's state (state-flusher.ts: one flush covers every request that
   * changed it meanwhile); resolves once durable.
   */
  async commit(group: ShareGroup, archived: readonly ArchivedNote[]): Promise<void> {
    if (archived.length > 0 && group.settings.dlqEnabled) await deadLetter(this.broker, group.name, archived);
    await this.flusherOf(group).request();
  }

  /** Flushes started for `group` so far (tests count them). */
  flushCount(group: ShareGroup): number {
    return this.flushers.get(group)?.flushes ?? 0;
  }

  private flusherOf(group: ShareGroup): StateFlusher {
    let f = this.flushers.get(group);
    if (!f)
      this.flushers.set(
        group,
        (f = new StateFlusher(
          () => group.partitions.values(),
          (d) => this.write(group, d),
        )),
      );
    return f;
  }

  private async write(group: ShareGroup, dirty: SharePartition[]): Promise<void> {
    try {
      const store = await this.openStore();
      await store.writeSnapshots(
        group.name,
        dirty.map((p) => ({ topic: p.topic, partition: p.partition, snapshot: p.snapshot() })),
      );
    } catch (err) {
      this.broker.logger.error('share state write failed', { group: group.name, error: String(err) });
      throw new HandlerError(ErrorCode.INTERNAL, 'share state write failed');
    }
  }

  requireMember(
    conn: ConnectionHandle,
    groupName: string,
    memberId: string,
  ): { group: ShareGroup; member: ShareMemberState } {
    const group = this.groups.get(groupName);
    const member = group?.members.get(memberId);
    if (!group || !member || member.conn !== conn) {
      throw new HandlerError(
        ErrorCode.GROUP_MEMBER_UNKNOWN,
        `'${memberId}' is not a member of share group '${groupName}' on this connection; join first`,
      );
    }
    const now = this.now();
    if (member.lastSeen + this.settings.sessionTimeoutMs <= now) {
      void this.sweepGroup(group).catch(() => undefined);
      throw new HandlerError(ErrorCode.GROUP_MEMBER_UNKNOWN, `share group membership '${memberId}' lapsed; join again`);
    }
    member.lastSeen = now;
    return { group, member };
  }

  private removeMember(group: ShareGroup, member: ShareMemberState, archived: ArchivedNote[]): void {
    group.members.delete(member.id);
    const now = this.now();
    for (const p of group.partitions.values())
      p.releaseMember(member.id, now, group.settings.deliveryCountLimit, archived);
  }

  private async connectionClosed(conn: ConnectionHandle): Promise<void> {
    for (const [groupName, memberId] of membershipsOf(conn)) {
      const group = this.groups.get(groupName);
      const member = group?.members.get(memberId);
      if (!group || !member) continue;
      const archived: ArchivedNote[] = [];
      this.removeMember(group, member, archived);
      await this.commit(group, archived).catch((err: unknown) =>
        this.broker.logger.error('share release on close failed', { group: groupName, error: String(err) }),
      );
    }
    membershipsOf(conn).clear();
  }

  private sweepInBackground(): void {
    if (this.sweeping) return;
    this.sweeping = (async () => {
      for (const g of this.groups.values()) await this.sweepGroup(g).catch(() => undefined);
    })().finally(() => (this.sweeping = undefined));
  }

  private async openStore(): Promise<ShareStore> {
    if (this.store) return this.store;
    await this.broker.internalLog(SHARE_STATE_TOPIC, 1);
    const topic = this.broker.topics.getTopic(SHARE_STATE_TOPIC)!;
    this.store ??= new ShareStore(topic.partitions.slice(0, SHARE_STATE_PARTITIONS), () => this.broker.now());
    return this.store;
  }

  private restore(replay: ReturnType<typeof replayShareState>): void {
    for (const [name, overrides] of replay.configs)
      this.groups.set(name, new ShareGroup(name, this.defaults, overrides));
    for (const [name, parts] of replay.partitions) {
      const group = this.groupOrNew(name);
      for (const p of parts.values()) group.addPartition(SharePartition.restore(p.topic, p.partition, p.snapshot));
    }
  }
}

function membershipsOf(conn: ConnectionHandle): Map<string, string> {
  let m = conn.session.get(SESSION_SHARE_MEMBERS) as Map<string, string> | undefined;
  if (!m) conn.session.set(SESSION_SHARE_MEMBERS, (m = new Map()));
  return m;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
