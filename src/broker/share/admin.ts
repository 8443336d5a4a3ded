/** SHARE_DESCRIBE, SHARE_RESET and SHARE_LIST over the share runtime's state. */
import { ErrorCode } from '../../protocol/error-codes.js';
import type { ShareGroupDescription, SharePartitionInfo } from '../../protocol/messages/share-describe.js';
import { ShareGroupState } from '../../protocol/messages/share-describe.js';
import type { ShareGroupList } from '../../protocol/messages/share-list.js';
import type { ShareReset } from '../../protocol/messages/share-reset.js';
import { ShareResetTo } from '../../protocol/opcodes.js';
import type { PartitionLog } from '../../storage/partition-log.js';
import { HandlerError } from '../handler.js';
import { sharePartition } from './acquire.js';
import { shareConfigEntries } from './config.js';
import { readAt, readCeiling } from './log-reads.js';
import type { ShareRuntime } from './runtime.js';
import type { ShareGroup } from './share-group.js';
import { RecordState, type SharePartition } from './share-partition.js';

export function describeShareGroup(rt: ShareRuntime, name: string): ShareGroupDescription {
  const group = rt.requireGroup(name);
  const now = rt.now();
  const acquiredBy = new Map<string, number>();
  const partitions = group.sortedPartitions().map((p) => {
    const info = partitionInfo(rt, group, p, now);
    for (const e of p.inFlight())
      if (e.state === RecordState.ACQUIRED && e.owner)
        acquiredBy.set(e.owner, (acquiredBy.get(e.owner) ?? 0) + e.count);
    return info;
  });
  return {
    group: name,
    state: group.members.size > 0 ? ShareGroupState.STABLE : ShareGroupState.EMPTY,
    config: shareConfigEntries(group.settings).map(([key, value]) => ({ key, value })),
    members: [...group.members.values()].map((m) => ({
      memberId: m.id,
      address: m.conn.remoteAddress,
      acquired: acquiredBy.get(m.id) ?? 0,
      lastSeenMs: BigInt(m.lastSeen),
    })),
    partitions,
  };
}

function partitionInfo(rt: ShareRuntime, group: ShareGroup, p: SharePartition, now: number): SharePartitionInfo {
  const counts = { available: 0, acquired: 0, acknowledged: 0, archived: 0 };
  const hist = new Map<number, number>();
  let oldest = now;
  // Each entry is a run of `count` records (share-runs.ts): every figure counts records, not runs.
  for (const e of p.inFlight()) {
    if (e.state === RecordState.AVAILABLE) counts.available += e.count;
    else if (e.state === RecordState.ACQUIRED) {
      counts.acquired += e.count;
      if (e.lockDeadline > now && e.acquiredAt < oldest) oldest = e.acquiredAt;
    } else if (e.state === RecordState.ACKNOWLEDGED) counts.acknowledged += e.count;
    else counts.archived += e.count;
    hist.set(e.deliveryCount, (hist.get(e.deliveryCount) ?? 0) + e.count);
  }
  const log = rt.broker.topics.getTopic(p.topic)?.partitions[p.partition - 1];
  const committed = group.settings.isolationLevel === 'read_committed';
  return {
    topic: p.topic,
    partition: p.partition,
    spso: p.spso,
    speo: p.speo,
    endOffset: log ? readCeiling(rt.broker, p.topic, p.partition, log, committed) : p.speo,
    ...counts,
    oldestLockAgeMs: BigInt(counts.acquired > 0 ? Math.max(0, now - oldest) : 0),
    deliveryCounts: [...hist.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([deliveryCount, records]) => ({ deliveryCount, records })),
  };
}

export async function resetShareGroup(rt: ShareRuntime, req: ShareReset): Promise<void> {
  const group = rt.requireGroup(req.group);
  if (group.members.size > 0) {
    throw new HandlerError(
      ErrorCode.GROUP_NOT_EMPTY,
      `share group '${req.group}' has ${group.members.size} active member(s); stop them before a reset`,
    );
  }
  const committed = group.settings.isolationLevel === 'read_committed';
  const targets: Array<{ topic: string; partition: number; log: PartitionLog }> = [];
  if (req.topic === '') {
    for (const p of group.partitions.values()) {
      const log = rt.broker.topics.getTopic(p.topic)?.partitions[p.partition - 1];
      if (log) targets.push({ topic: p.topic, partition: p.partition, log });
    }
  } else {
    rt.broker.topics
      .requireTopic(req.topic)
      .partitions.forEach((log, i) => targets.push({ topic: req.topic, partition: i + 1, log }));
  }
  const planned = targets.map((t) => ({ t, offset: resetOffset(rt, t, req, committed) }));
  for (const { t, offset } of planned) sharePartition(rt.broker, group, t).resetTo(offset);
  await rt.commit(group, []);
}

function resetOffset(
  rt: ShareRuntime,
  t: { topic: string; partition: number; log: PartitionLog },
  req: ShareReset,
  committed: boolean,
): bigint {
  if (req.to === ShareResetTo.EARLIEST) return t.log.logStartOffset;
  const end = readCeiling(rt.broker, t.topic, t.partition, t.log, committed);
  if (req.to === ShareResetTo.LATEST) return end;
  if (req.offset === end || (req.offset >= t.log.logStartOffset && req.offset < end && readAt(t.log, req.offset)))
    return req.offset;
  throw new HandlerError(
    ErrorCode.BAD_FRAME,
    `offset ${req.offset} is not a record start in ${t.topic}/partition-${t.partition} (readable ${t.log.logStartOffset}..${end})`,
  );
}

export function listShareGroups(rt: ShareRuntime): ShareGroupList {
  const names = [...rt.groups.keys()].sort();
  return {
    groups: names.map((group) => ({
      group,
      members: rt.groups.get(group)!.members.size,
      partitions: rt.groups.get(group)!.partitions.size,
    })),
  };
}
