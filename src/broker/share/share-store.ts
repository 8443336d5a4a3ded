/**
 * `__share_group_state` (storage/share-state-codec.ts for the layouts): each share-partition's snapshot and each
 * group's config overrides, keyed so compaction keeps only the latest. Every write is appended, then fsynced before
 * the request it serves is answered (acquisitions included, so a crash never resets a delivery count); syncs of one
 * partition are coalesced as for the other internal topics (internal-topic.ts).
 *
 * Replay at start reads partitions 1..16 front to back; the last record per key wins and a tombstone deletes it.
 * An unreadable value that no later record replaced stops the start: guessing could redeliver acknowledged records
 * or reset delivery counts.
 */
import path from 'node:path';
import { StorageError } from '../../errors.js';
import type { PartitionLog } from '../../storage/partition-log.js';
import {
  SHARE_STATE_TOPIC,
  type SharePartitionSnapshot,
  type ShareStateKey,
  ShareStateKind,
  decodeGroupConfig,
  decodeShareStateKey,
  decodeSnapshot,
  encodeGroupConfig,
  encodeShareStateKey,
  encodeSnapshot,
  shareStatePartitionOfKey,
} from '../../storage/share-state-codec.js';
import { KeyedInternalStore, replayRecords } from '../internal-topic.js';

export interface ShareStateReplay {
  /** group → config overrides. */
  configs: Map<string, Array<[string, string]>>;
  /** group → "topic\0partition" → snapshot. */
  partitions: Map<string, Map<string, { topic: string; partition: number; snapshot: SharePartitionSnapshot }>>;
}

export function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

export class ShareStore extends KeyedInternalStore {
  constructor(partitions: readonly PartitionLog[], now: () => bigint) {
    super(partitions, now, shareStatePartitionOfKey);
  }

  /** Appends the snapshots (one append: they share the group's partition) and resolves once they are durable. */
  writeSnapshots(
    group: string,
    items: ReadonlyArray<{ topic: string; partition: number; snapshot: SharePartitionSnapshot }>,
  ): Promise<void> {
    return this.appendKeyed(
      items.map((x) => ({
        key: encodeShareStateKey({ kind: ShareStateKind.PARTITION, group, topic: x.topic, partition: x.partition }),
        value: encodeSnapshot(x.snapshot),
      })),
    );
  }

  writeConfig(group: string, overrides: ReadonlyArray<readonly [string, string]>): Promise<void> {
    return this.appendKeyed([
      { key: encodeShareStateKey({ kind: ShareStateKind.CONFIG, group }), value: encodeGroupConfig(overrides) },
    ]);
  }
}

type Slot = { ok: true; key: ShareStateKey; value: Buffer } | { ok: false; where: string; detail: string };

export function replayShareState(logs: readonly PartitionLog[]): ShareStateReplay {
  const slots = new Map<string, Slot>();
  for (const { log, record } of replayRecords(logs)) {
    const where = `${path.basename(log.dir)} offset ${record.offset}`;
    const key = decodeShareStateKey(record.key);
    const id = record.key.toString('hex');
    if (!key.ok) slots.set(id, { ok: false, where, detail: key.detail });
    else slots.set(id, { ok: true, key: key.value, value: record.value });
  }
  const out: ShareStateReplay = { configs: new Map(), partitions: new Map() };
  for (const slot of slots.values()) {
    if (!slot.ok) throw new StorageError(`cannot trust ${SHARE_STATE_TOPIC}: ${slot.where}: ${slot.detail}`);
    if (slot.value.length === 0) continue;
    const { key } = slot;
    if (key.kind === ShareStateKind.CONFIG) {
      const config = decodeGroupConfig(slot.value);
      if (!config.ok)
        throw new StorageError(`cannot trust ${SHARE_STATE_TOPIC}: config of group '${key.group}': ${config.detail}`);
      out.configs.set(key.group, config.value);
      continue;
    }
    const snapshot = decodeSnapshot(slot.value);
    if (!snapshot.ok) {
      throw new StorageError(
        `cannot trust ${SHARE_STATE_TOPIC}: group '${key.group}' ${key.topic}/${key.partition}: ${snapshot.detail}`,
      );
    }
    let group = out.partitions.get(key.group);
    if (!group)
      out.partitions.set(
        key.group,
        (group = new Map<string, { topic: string; partition: number; snapshot: SharePartitionSnapshot }>()),
      );
    group.set(partitionKey(key.topic, key.partition), {
      topic: key.topic,
      partition: key.partition,
      snapshot: snapshot.value,
    });
  }
  return out;
}
