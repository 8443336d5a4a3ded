/**
 * Committed offsets on `__consumer_offsets` (semantics.md §7): a commitlog topic, compacted, 8 MiB segments,
 * 16 partitions; every commit of a group lands in partition fnv1a32(group) mod 16 + 1.
 *
 *   key    u16 group length · group · u16 topic length · topic · u32 partition (1-based)
 *   value  u64 offset; zero-length = tombstone (DELETE_GROUP, DELETE_TOPIC)
 *
 * Start-up replays every partition front to back, the last record per key wins and a tombstone deletes the key.
 * A commit appends synchronously and then syncs; syncs of one partition are coalesced (internal-topic.ts), so a
 * burst of commits costs about two fsyncs.
 *
 * The commits FETCH and push deliveries make (`deliver`) are applied in memory at once and written coalesced: a
 * flush, `DELIVERY_FLUSH_MS` after the first unwritten one (or at once when someone waits for them: `flushDelivered`),
 * appends one record per key with the key's value at that moment, one append per partition, then syncs. Every
 * other write appends the value it sets at once, so the last record per key on disk is always the value in memory
 * after the flush: a crash loses at most the deliveries of the last flush interval (they are redelivered).
 */
import {
  CONSUMER_OFFSETS_PARTITIONS,
  CONSUMER_OFFSETS_TOPIC,
  decodeOffsetKey,
  decodeOffsetValue,
  encodeOffsetKey,
  encodeOffsetValue,
  offsetsPartition,
} from '../../storage/offsets-codec.js';
import type { PartitionLog } from '../../storage/partition-log.js';
import type { RecordToStore } from '../../storage/record.js';
import type { Logger } from '../logger.js';
import { InternalTopicLogs, replayRecords } from '../internal-topic.js';

export { CONSUMER_OFFSETS_PARTITIONS, CONSUMER_OFFSETS_TOPIC };

/** How long a delivery commit may stay unwritten: the longest a crash can roll a group back (redelivery only). */
export const DELIVERY_FLUSH_MS = 5;

/** One committed offset, with what writing it needs, kept from its first commit until it is deleted. */
interface Slot {
  readonly group: string;
  readonly topic: string;
  readonly partition: number;
  offset: bigint;
  /** The encoded key, made on the first delivery flush that writes it. */
  key: Buffer | undefined;
  /** Delivered and not written yet (it is on `OffsetStore.unwritten`). */
  unwritten: boolean;
  /** False once deleted: a flush skips it (a tombstone was written after it). */
  live: boolean;
}

export interface OffsetCommit {
  topic: string;
  partition: number;
  offset: bigint;
}

export class OffsetStore {
  /** group → topic → partition → committed offset */
  private readonly groups = new Map<string, Map<string, Map<number, Slot>>>();
  private readonly logs: InternalTopicLogs;
  /** Delivered offsets not written yet, in the order they were first delivered since the last flush. */
  private unwritten: Slot[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  /** The durability of the last delivery flush. */
  private lastFlush: Promise<void> = Promise.resolve();
  private flushesRunning = 0;

  constructor(
    logs: readonly PartitionLog[],
    private readonly now: () => bigint,
    private readonly logger: Logger,
  ) {
    this.logs = new InternalTopicLogs(logs);
  }

  /** Offset records appended (commits and tombstones) since start; tests count them. */
  get commitCount(): number {
    return this.logs.appended;
  }

  /** Opens the 16 partitions through `open` and replays them. */
  static async open(
    open: (partition: number) => Promise<PartitionLog>,
    now: () => bigint,
    logger: Logger,
  ): Promise<OffsetStore> {
    const logs: PartitionLog[] = [];
    for (let p = 1; p <= CONSUMER_OFFSETS_PARTITIONS; p++) logs.push(await open(p));
    const store = new OffsetStore(logs, now, logger);
    store.replay();
    return store;
  }

  replay(): void {
    this.groups.clear();
    for (const { record } of replayRecords(this.logs.logs)) this.applyRecord(record.key, record.value);
  }

  private applyRecord(key: Buffer, value: Buffer): void {
    const k = decodeOffsetKey(key);
    if (!k.ok) {
      this.logger.warn('skipping an unreadable __consumer_offsets key', { problem: k.problem, detail: k.detail });
      return;
    }
    const { group, topic, partition } = k.value;
    const v = decodeOffsetValue(value);
    if (!v.ok) {
      this.logger.warn('skipping an unreadable __consumer_offsets value', {
        group,
        problem: v.problem,
        detail: v.detail,
      });
      return;
    }
    if (v.value === undefined) this.forget(group, topic, partition);
    else this.set(group, topic, partition, v.value);
  }

  get(group: string, topic: string, partition: number): bigint | undefined {
    return this.groups.get(group)?.get(topic)?.get(partition)?.offset;
  }

  hasGroup(group: string): boolean {
    return this.groups.has(group);
  }

  groupIds(): string[] {
    return [...this.groups.keys()];
  }

  /** The group's offsets sorted by (topic, partition). */
  offsetsOf(group: string): OffsetCommit[] {
    const out: OffsetCommit[] = [];
    const topics = this.groups.get(group);
    if (!topics) return out;
    for (const topic of [...topics.keys()].sort(compareBytes)) {
      const parts = topics.get(topic)!;
      for (const partition of [...parts.keys()].sort((a, b) => a - b)) {
        out.push({ topic, partition, offset: parts.get(partition)!.offset });
      }
    }
    return out;
  }

  /**
   * Appends the commits of one group (one append to its partition) and applies them in memory at once; the
   * returned promise settles when they are durable. Throws when the append fails (nothing is applied then).
   */
  commit(group: string, commits: readonly OffsetCommit[]): Promise<void> {
    if (commits.length === 0) return Promise.resolve();
    const timestamp = this.now();
    const records: RecordToStore[] = commits.map((c) => ({
      attrs: 0,
      timestamp,
      key: encodeOffsetKey({ group, topic: c.topic, partition: c.partition }),
      value: encodeOffsetValue(c.offset),
    }));
    const log = this.logFor(group);
    this.logs.append(log, records);
    for (const c of commits) this.set(group, c.topic, c.partition, c.offset);
    return this.logs.durable([log]);
  }

  /** Tombstones every offset of the group; resolves once durable. */
  deleteGroup(group: string): Promise<void> {
    const topics = this.groups.get(group);
    if (!topics) return Promise.resolve();
    const keys: Array<{ topic: string; partition: number }> = [];
    for (const [topic, parts] of topics) for (const partition of parts.keys()) keys.push({ topic, partition });
    return this.tombstone(group, keys);
  }

  /** Tombstones every group's offsets for the topic; resolves once durable. */
  async deleteTopic(topic: string): Promise<void> {
    const work: Promise<void>[] = [];
    for (const [group, topics] of this.groups) {
      const parts = topics.get(topic);
      if (!parts) continue;
      work.push(
        this.tombstone(
          group,
          [...parts.keys()].map((partition) => ({ topic, partition })),
        ),
      );
    }
    await Promise.all(work);
  }

  /**
   * A delivery's commit (FETCH, push): the offset is the committed one from now on and is written by the next
   * delivery flush, within DELIVERY_FLUSH_MS. No allocation once the key was committed before.
   */
  deliver(group: string, topic: string, partition: number, offset: bigint): void {
    const slot = this.set(group, topic, partition, offset);
    if (!slot.unwritten) {
      slot.unwritten = true;
      this.unwritten.push(slot);
    }
    if (this.flushTimer === undefined) {
      this.flushTimer = setTimeout(() => void this.flushDelivered().catch(() => undefined), DELIVERY_FLUSH_MS);
      this.flushTimer.unref();
    }
  }

  /** True while delivered offsets are unwritten or their flush's fsync has not completed. */
  get deliveriesPending(): boolean {
    return this.unwritten.length > 0 || this.flushesRunning > 0;
  }

  /**
   * Writes every delivered offset not written yet (one record per key, its current value) and resolves once they
   * and every earlier delivery flush are durable. A failure is logged and rejects; nothing is retried (the offsets
   * stay committed in memory, so a later delivery of the partition writes them again).
   */
  flushDelivered(): Promise<void> {
    if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const slots = this.unwritten;
    if (slots.length === 0) return this.lastFlush;
    this.unwritten = [];
    const byLog = new Map<PartitionLog, RecordToStore[]>();
    const timestamp = this.now();
    for (const slot of slots) {
      slot.unwritten = false;
      if (!slot.live) continue;
      slot.key ??= encodeOffsetKey({ group: slot.group, topic: slot.topic, partition: slot.partition });
      const log = this.logFor(slot.group);
      let list = byLog.get(log);
      if (!list) byLog.set(log, (list = []));
      list.push({ attrs: 0, timestamp, key: slot.key, value: encodeOffsetValue(slot.offset) });
    }
    const flush = this.writeDelivered(byLog, slots);
    this.flushesRunning++;
    const done = Promise.all([this.lastFlush.catch(() => undefined), flush])
      .then(() => undefined)
      .finally(() => this.flushesRunning--);
    this.lastFlush = done;
    return done;
  }

  private async writeDelivered(byLog: Map<PartitionLog, RecordToStore[]>, slots: readonly Slot[]): Promise<void> {
    try {
      for (const [log, records] of byLog) this.logs.append(log, records);
      await this.logs.durable([...byLog.keys()]);
    } catch (err) {
      const groups = [...new Set(slots.map((s) => s.group))];
      this.logger.error('offset commit failed', { groups, error: err instanceof Error ? err.message : String(err) });
      throw err;
    }
  }

  /** Writes the delivered offsets and waits for every sync started so far. */
  async flush(): Promise<void> {
    await this.flushDelivered().catch(() => undefined);
    await this.logs.flush();
  }

  private tombstone(group: string, keys: ReadonlyArray<{ topic: string; partition: number }>): Promise<void> {
    if (keys.length === 0) return Promise.resolve();
    const timestamp = this.now();
    const log = this.logFor(group);
    this.logs.append(
      log,
      keys.map((k) => ({ attrs: 0, timestamp, key: encodeOffsetKey({ group, ...k }), value: Buffer.alloc(0) })),
    );
    for (const k of keys) this.forget(group, k.topic, k.partition);
    return this.logs.durable([log]);
  }

  private logFor(group: string): PartitionLog {
    return this.logs.log(offsetsPartition(group, this.logs.logs.length));
  }

  private set(group: string, topic: string, partition: number, offset: bigint): Slot {
    let topics = this.groups.get(group);
    if (!topics) this.groups.set(group, (topics = new Map<string, Map<number, Slot>>()));
    let parts = topics.get(topic);
    if (!parts) topics.set(topic, (parts = new Map<number, Slot>()));
    let slot = parts.get(partition);
    if (slot) slot.offset = offset;
    else {
      slot = { group, topic, partition, offset, key: undefined, unwritten: false, live: true };
      parts.set(partition, slot);
    }
    return slot;
  }

  private forget(group: string, topic: string, partition: number): void {
    const topics = this.groups.get(group);
    const parts = topics?.get(topic);
    if (!topics || !parts) return;
    const slot = parts.get(partition);
    if (slot) slot.live = false;
    parts.delete(partition);
    if (parts.size === 0) topics.delete(topic);
    if (topics.size === 0) this.groups.delete(group);
  }
}

export function compareBytes(a: string, b: string): number {
  return a === b ? 0 : Buffer.compare(Buffer.from(a), Buffer.from(b));
}
