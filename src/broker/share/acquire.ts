/**
 * Acquiring records for one member (SHARE_FETCH): partitions of the member's topics in rotation, from each first
 * the Available records of the window (redeliveries, oldest first), then new records read at the SPEO while the
 * window is below `partition.max.record.locks`. Everything returned is Acquired by the member from `now`.
 */
import type { ShareRecord } from '../../protocol/messages/share-fetch.js';
import type { PartitionLog } from '../../storage/partition-log.js';
import type { BrokerCore } from '../core.js';
import { readAt, readCeiling, readNew } from './log-reads.js';
import type { ShareGroup, ShareMemberState } from './share-group.js';
import { type ArchivedNote, SharePartition } from './share-partition.js';

/** Keeps a SHARE_RECORDS reply far below the client's 16 MiB frame limit. */
const MAX_REPLY_BYTES = 8 * 1_048_576;

interface Target {
  topic: string;
  partition: number;
  log: PartitionLog;
}

export function acquire(
  broker: BrokerCore,
  group: ShareGroup,
  member: ShareMemberState,
  max: number,
  now: number,
  archived: ArchivedNote[],
): ShareRecord[] {
  const targets = targetsOf(broker, member);
  const out: ShareRecord[] = [];
  if (targets.length === 0) return out;
  const start = member.cursor++ % targets.length;
  const budget = { bytes: MAX_REPLY_BYTES };
  for (let k = 0; k < targets.length && out.length < max && budget.bytes > 0; k++) {
    const t = targets[(start + k) % targets.length]!;
    const sp = sharePartition(broker, group, t);
    sp.expire(now, group.settings.deliveryCountLimit, archived);
    redeliver(sp, t, member, max - out.length, now, group, out, budget);
    readFresh(broker, sp, t, member, max - out.length, now, group, out, budget);
  }
  return out;
}

/** The group's share-partition, created from auto.offset.reset the first time the group reads it. */
export function sharePartition(broker: BrokerCore, group: ShareGroup, t: Target): SharePartition {
  const existing = group.partition(t.topic, t.partition);
  if (existing) return existing;
  const committed = group.settings.isolationLevel === 'read_committed';
  const start =
    group.settings.autoOffsetReset === 'earliest'
      ? t.log.logStartOffset
      : readCeiling(broker, t.topic, t.partition, t.log, committed);
  const sp = group.addPartition(new SharePartition(t.topic, t.partition, start, start));
  sp.dirty = true;
  return sp;
}

function targetsOf(broker: BrokerCore, member: ShareMemberState): Target[] {
  const out: Target[] = [];
  for (const name of member.topics) {
    const topic = broker.topics.getTopic(name);
    if (!topic) continue;
    topic.partitions.forEach((log, i) => out.push({ topic: name, partition: i + 1, log }));
  }
  return out;
}

function redeliver(
  sp: SharePartition,
  t: Target,
  member: ShareMemberState,
  max: number,
  now: number,
  group: ShareGroup,
  out: ShareRecord[],
  budget: { bytes: number },
): void {
  if (max <= 0) return;
  for (const e of sp.acquireAvailable(member.id, max, now, group.settings.recordLockDurationMs)) {
    const read = readAt(t.log, e.offset);
    if (!read) {
      sp.drop(e);
      continue;
    }
    budget.bytes -= read.record.key.length + read.value.length;
    out.push(
      shareRecord(
        t,
        read.record.offset,
        read.record.timestamp,
        e.deliveryCount,
        e.lockDeadline,
        read.record.key,
        read.value,
      ),
    );
  }
}

function readFresh(
  broker: BrokerCore,
  sp: SharePartition,
  t: Target,
  member: ShareMemberState,
  max: number,
  now: number,
  group: ShareGroup,
  out: ShareRecord[],
  budget: { bytes: number },
): void {
  const cfg = group.settings;
  const room = Math.min(max, cfg.partitionMaxRecordLocks - sp.inFlightCount);
  if (room <= 0 || budget.bytes <= 0) return;
  if (sp.speo < t.log.logStartOffset && sp.inFlightCount === 0) sp.resetTo(t.log.logStartOffset);
  const committed = cfg.isolationLevel === 'read_committed';
  const polled = readNew(broker, t.topic, t.partition, t.log, sp.speo, room, committed, budget.bytes);
  if (!polled || (polled.records.length === 0 && polled.nextCursor === sp.speo)) return;
  const offsets = polled.records.map((r) => r.offset);
  const entries = sp.appendAcquired(offsets, polled.nextCursor, member.id, now, cfg.recordLockDurationMs);
  for (let i = 0; i < entries.length; i++) {
    const r = polled.records[i]!;
    const value = polled.values[i]!;
    budget.bytes -= r.key.length + value.length;
    out.push(shareRecord(t, r.offset, r.timestamp, 1, entries[i]!.lockDeadline, r.key, value));
  }
}

function shareRecord(
  t: Target,
  offset: bigint,
  timestamp: bigint,
  deliveryCount: number,
  lockDeadline: number,
  key: Buffer,
  value: Buffer,
): ShareRecord {
  return {
    topic: t.topic,
    partition: t.partition,
    offset,
    timestamp,
    deliveryCount,
    lockDeadlineMs: BigInt(lockDeadline),
    key,
    value,
  };
}
