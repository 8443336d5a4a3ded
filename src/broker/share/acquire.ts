/**
 * Acquiring records for one member (SHARE_FETCH): partitions of the member's topics in rotation, from each first
 * the Available runs of the window (redeliveries, oldest first, read from the log again), then new records read at
 * the SPEO while the window is below `partition.max.record.locks`. Everything returned is Acquired by the member
 * from `now`, as pieces of the reply: one per run acquired, no object per record.
 */
import type { PartitionLog } from '../../storage/partition-log.js';
import type { BrokerCore } from '../core.js';
import type { PolledPartition } from '../consumer/fetch-poller.js';
import { readCeiling, readNew } from './log-reads.js';
import type { ShareRecordPiece } from './record-frames.js';
import type { ShareGroup, ShareMemberState } from './share-group.js';
import { type ArchivedNote, RecordState, type Run, SharePartition } from './share-partition.js';

/** Keeps a SHARE_RECORDS reply far below the client's 16 MiB frame limit. */
const MAX_REPLY_BYTES = 8 * 1_048_576;

interface Target {
  topic: string;
  partition: number;
  log: PartitionLog;
}

interface Acquired {
  pieces: ShareRecordPiece[];
  count: number;
  /** Key and value bytes left for the reply. */
  bytes: number;
}

export function acquire(
  broker: BrokerCore,
  group: ShareGroup,
  member: ShareMemberState,
  max: number,
  now: number,
  archived: ArchivedNote[],
): ShareRecordPiece[] {
  const targets = targetsOf(broker, member);
  const out: Acquired = { pieces: [], count: 0, bytes: MAX_REPLY_BYTES };
  if (targets.length === 0) return out.pieces;
  const start = member.cursor++ % targets.length;
  for (let k = 0; k < targets.length && out.count < max && out.bytes > 0; k++) {
    const t = targets[(start + k) % targets.length]!;
    const sp = sharePartition(broker, group, t);
    sp.expire(now, group.settings.deliveryCountLimit, archived);
    redeliver(broker, sp, t, member, max, now, group, out);
    readFresh(broker, sp, t, member, max, now, group, out);
  }
  return out.pieces;
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

/** Every data record of `run` the log still holds (from the log start on), with no count or byte cap. */
function readWhole(broker: BrokerCore, t: Target, run: Run, committed: boolean): BigUint64Array {
  const all = readNew(
    broker,
    t.topic,
    t.partition,
    t.log,
    run.first,
    Number.MAX_SAFE_INTEGER,
    committed,
    Number.MAX_SAFE_INTEGER,
    run.last + 1n,
  );
  return offsetsOf(all);
}

function redeliver(
  broker: BrokerCore,
  sp: SharePartition,
  t: Target,
  member: ShareMemberState,
  max: number,
  now: number,
  group: ShareGroup,
  out: Acquired,
): void {
  const committed = group.settings.isolationLevel === 'read_committed';
  for (const run of sp.acquirable(now)) {
    if (out.count >= max || out.bytes <= 0) return;
    // A restored run learns its records' offsets, and a run the log start passed loses the records below it.
    if (!run.offsets || run.first < t.log.logStartOffset) sp.resolve(run, readWhole(broker, t, run, committed));
    if (run.state !== RecordState.AVAILABLE) continue;
    const want = Math.min(max - out.count, run.count);
    const polled = readNew(broker, t.topic, t.partition, t.log, run.first, want, committed, out.bytes, run.last + 1n);
    const n = polled?.records.length ?? 0;
    if (n === 0 || polled!.records[n - 1]!.offset !== run.offsets![n - 1]) {
      // The log no longer matches the run (it lost records): take what it holds now, deliver it next time.
      sp.resolve(run, readWhole(broker, t, run, committed));
      continue;
    }
    const got = sp.acquireFront(run, n, member.id, now, group.settings.recordLockDurationMs);
    addPiece(out, t, got, polled!);
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
  out: Acquired,
): void {
  const cfg = group.settings;
  const room = Math.min(max - out.count, cfg.partitionMaxRecordLocks - sp.inFlightCount);
  if (room <= 0 || out.bytes <= 0) return;
  if (sp.speo < t.log.logStartOffset && sp.inFlightCount === 0) sp.resetTo(t.log.logStartOffset);
  const committed = cfg.isolationLevel === 'read_committed';
  const polled = readNew(broker, t.topic, t.partition, t.log, sp.speo, room, committed, out.bytes);
  if (!polled || (polled.records.length === 0 && polled.nextCursor === sp.speo)) return;
  const run = sp.appendAcquired(offsetsOf(polled), polled.nextCursor, member.id, now, cfg.recordLockDurationMs);
  if (run) addPiece(out, t, run, polled);
}

function offsetsOf(polled: PolledPartition | undefined): BigUint64Array {
  const records = polled?.records ?? [];
  const offsets = new BigUint64Array(records.length);
  for (let i = 0; i < records.length; i++) offsets[i] = records[i]!.offset;
  return offsets;
}

function addPiece(out: Acquired, t: Target, run: Run, polled: PolledPartition): void {
  const { records, values } = polled;
  for (let i = 0; i < records.length; i++) out.bytes -= records[i]!.key.length + values[i]!.length;
  out.count += records.length;
  out.pieces.push({
    topic: t.topic,
    partition: t.partition,
    deliveryCount: run.deliveryCount,
    lockDeadlineMs: run.lockDeadline,
    records,
    values,
  });
}
