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

export interface OffsetCommit {
  topic: string;
  partition: number;
  offset: bigint;
}

export class OffsetStore {
  /** group → topic → partition → committed offset */
  private readonly groups = new Map<string, Map<string, Map<number, bigint>>>();
  private readonly logs: InternalTopicLogs;

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
    return this.groups.get(group)?.get(topic)?.get(partition);
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
        out.push({ topic, partition, offset: parts.get(partition)! });
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

  /** Waits for every sync started so far. */
  flush(): Promise<void> {
    return this.logs.flush();
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

  private set(group: string, topic: string, partition: number, offset: bigint): void {
    let topics = this.groups.get(group);
    if (!topics) this.groups.set(group, (topics = new Map<string, Map<number, bigint>>()));
    let parts = topics.get(topic);
    if (!parts) topics.set(topic, (parts = new Map<number, bigint>()));
    parts.set(partition, offset);
  }

  private forget(group: string, topic: string, partition: number): void {
    const topics = this.groups.get(group);
    const parts = topics?.get(topic);
    if (!topics || !parts) return;
    parts.delete(partition);
    if (parts.size === 0) topics.delete(topic);
    if (topics.size === 0) this.groups.delete(group);
  }
}

export function compareBytes(a: string, b: string): number {
  return a === b ? 0 : Buffer.compare(Buffer.from(a), Buffer.from(b));
}
