/**
 * The hot path of a plain PRODUCE_BATCH (no IDEMPOTENT, no HEADERS, codec none): the request's entry table
 * (protocol/messages/produce-batch-table.ts) is partitioned, grouped and appended without a record object, a Buffer
 * view or a bigint per record, and the ack is written from the same arrays. It keeps produce-path.ts's rules exactly:
 * partition per record in list order (key hash or sticky), one append per touched partition in order of first
 * appearance, acks for the list-order prefix that landed with everything past it truncated away, and the reply only
 * once every touched log is durable.
 */
import { fnv1a32Range } from '../protocol/fnv1a.js';
import { byteView } from '../protocol/byte-view.js';
import type { ProduceBatchTable } from '../protocol/messages/produce-batch-table.js';
import type { PartitionLog, RecordToStore, SourceAppendResult } from '../storage/partition-log.js';
import { EntryRecordsSource } from '../storage/record-source.js';
import type { BrokerCore } from './core.js';
import { syncAll } from './produce-path.js';
import type { Topic } from './topics.js';

const EMPTY = Buffer.alloc(0);

/** Entry numbers grouped per partition: `order[from, to)` are partition `partition`'s, in list order. */
export interface TablePlan {
  /** The 1-based partition of each entry, by list index. */
  assigned: Uint16Array;
  order: Uint32Array;
  groups: { partition: number; from: number; to: number }[];
}

export interface TableOutcome {
  /** Entries [0, ackCount) landed: the acks are (assigned[i], offsets[i]). */
  ackCount: number;
  assigned: Uint16Array;
  /** By list index; -1 where the entry did not land. */
  offsets: Float64Array;
  error: Error | undefined;
  /**
   * Settles once every log appended to is durable (undefined under acks=none, or when nothing landed). Each log's
   * sync is requested as soon as its run is written, so its fsync runs while the next partition's run is encoded;
   * a log cut back after a partial append is synced once more, behind the cut.
   */
  durable: Promise<void> | undefined;
}

/** Partitions every entry (key hash, or the sticky partitioner for an empty key), or all to `fixed` when given. */
export function planTable(broker: BrokerCore, topic: Topic, t: ProduceBatchTable, fixed?: number): TablePlan {
  const n = t.count;
  const count = topic.partitions.length;
  const assigned = new Uint16Array(n);
  if (fixed !== undefined) {
    assigned.fill(fixed);
  } else {
    const { src, table } = t;
    const partitioner = broker.topics.partitioner;
    for (let i = 0, e = 0; i < n; i++, e += 4) {
      const keyLen = table[e + 1]!;
      assigned[i] =
        keyLen > 0
          ? (fnv1a32Range(src, table[e]!, table[e]! + keyLen) % count) + 1
          : partitioner.partitionFor(topic.name, EMPTY, count);
    }
  }
  return groupByPartition(assigned, count);
}

function groupByPartition(assigned: Uint16Array, count: number): TablePlan {
  const n = assigned.length;
  const sizes = new Uint32Array(count + 1);
  const firsts: number[] = [];
  for (let i = 0; i < n; i++) if (sizes[assigned[i]!]!++ === 0) firsts.push(assigned[i]!);
  const next = new Uint32Array(count + 1);
  const groups: TablePlan['groups'] = [];
  let at = 0;
  for (const partition of firsts) {
    next[partition] = at;
    groups.push({ partition, from: at, to: at + sizes[partition]! });
    at += sizes[partition]!;
  }
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[next[assigned[i]!]!++] = i;
  return { assigned, order, groups };
}

/** Appends the plan, one call per group, under produce-path.ts's prefix rule (see appendPrepared there). */
export function appendTable(broker: BrokerCore, topic: Topic, t: ProduceBatchTable, plan: TablePlan): TableOutcome {
  const n = t.count;
  const { order, groups } = plan;
  const offsets = new Float64Array(n).fill(-1);
  const early: Promise<void>[] | undefined = broker.config.acks === 'none' ? undefined : [];
  const timestamp = Number(broker.now());
  let error: Error | undefined;
  // The list index of the first entry known not to land; later groups only take the entries before it.
  let bound = n;
  for (const g of groups) {
    const log = topic.partitions[g.partition - 1]!;
    let to = g.from;
    while (to < g.to && order[to]! < bound) to++;
    let result: SourceAppendResult;
    try {
      result = to > g.from ? appendGroup(log, t, order, g.from, to, timestamp) : { offsets: [] };
    } catch (err) {
      result = { offsets: [], error: err instanceof Error ? err : new Error(String(err)) };
    }
    const landed = result.offsets;
    for (let j = 0; j < landed.length; j++) offsets[order[g.from + j]!] = landed[j]!;
    if (landed.length > 0) early?.push(log.sync());
    const k = g.from + landed.length;
    if (result.error && k < g.to && order[k]! < bound) {
      bound = order[k]!;
      error = result.error;
    }
  }
  let ackCount = 0;
  while (ackCount < n && offsets[ackCount]! >= 0) ackCount++;
  const cut = error ? takeBackPastPrefix(broker, topic.partitions, plan, offsets, ackCount) : [];
  return { ackCount, assigned: plan.assigned, offsets, error, durable: durableAfter(early, cut) };
}

/**
 * What the reply waits for: the early syncs, plus a fresh one for every log cut back after a partial append (its
 * early fsync may have started before the cut, which the next fsync makes durable).
 */
function durableAfter(early: Promise<void>[] | undefined, cut: readonly PartitionLog[]): Promise<void> | undefined {
  if (early === undefined || early.length === 0) return undefined;
  const all = cut.length === 0 ? early : [...early, syncAll(cut)];
  return all.length === 1 ? all[0]! : Promise.all(all).then(() => undefined);
}

/** One group's append: straight from the table where the log takes a RecordSource, else as RecordToStore objects. */
function appendGroup(
  log: PartitionLog,
  t: ProduceBatchTable,
  order: Uint32Array,
  from: number,
  to: number,
  timestamp: number,
): SourceAppendResult {
  if (log.appendSource) return log.appendSource(new EntryRecordsSource(t, order, from, to, 0, timestamp));
  const records: RecordToStore[] = [];
  const { src, table } = t;
  for (let j = from; j < to; j++) {
    const e = order[j]! * 4;
    const key = byteView(src, table[e]!, table[e]! + table[e + 1]!);
    const value = byteView(src, table[e + 2]!, table[e + 2]! + table[e + 3]!);
    records.push({ attrs: 0, timestamp: BigInt(timestamp), key, value });
  }
  const result = log.append(records);
  const landed = result.offsets.map(Number);
  return result.error ? { offsets: landed, error: result.error } : { offsets: landed };
}

/**
 * produce-path.ts's takeBackPastPrefix for a table: cuts every partition back to its first entry past `prefix`.
 * Returns the logs it cut.
 */
function takeBackPastPrefix(
  broker: BrokerCore,
  partitions: readonly PartitionLog[],
  plan: TablePlan,
  offsets: Float64Array,
  prefix: number,
): PartitionLog[] {
  const cut: PartitionLog[] = [];
  for (const g of plan.groups) {
    let first = -1;
    for (let j = g.from; j < g.to && first < 0; j++) {
      const i = plan.order[j]!;
      if (i >= prefix && offsets[i]! >= 0) first = i;
    }
    if (first < 0) continue;
    const log = partitions[g.partition - 1]!;
    cut.push(log);
    try {
      if (!log.truncateTo) throw new Error(`the ${log.backend} backend cannot truncate`);
      log.truncateTo(BigInt(offsets[first]!));
    } catch (err) {
      broker.logger.error('unacked records of a partial batch stay on disk', {
        dir: log.dir,
        offset: String(offsets[first]),
        error: String(err),
      });
    }
  }
  return cut;
}
