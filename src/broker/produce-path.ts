/**
 * The shared produce path: codec check, compression, broker timestamps, partitioning, grouped appends and the
 * acks-dependent sync. PRODUCE and PRODUCE_BATCH both go through here, so they partition and store identically.
 */
import { ErrorCode } from '../protocol/error-codes.js';
import { compressValue, isSupportedCodec } from '../protocol/compression.js';
import type { RecordHeader } from '../protocol/headers.js';
import type { ProduceAck } from '../protocol/messages/produce.js';
import type { AppendResult, PartitionLog, RecordToStore } from '../storage/partition-log.js';
import { type BrokerCore, type OrderedReplies, SESSION_ORDERED_REPLIES } from './core.js';
import { type ConnectionHandle, HandlerError } from './handler.js';
import type { Topic } from './topics.js';

export interface IncomingRecord {
  key: Buffer;
  value: Buffer;
  headers?: RecordHeader[] | undefined;
}

export interface ProduceOutcome {
  /** Acks for the list-order prefix of the records that landed. */
  acks: ProduceAck[];
  /** Why the records after the prefix were not written. */
  error?: Error | undefined;
  /** The logs appended to, to sync before acking (empty under acks=none). */
  toSync: PartitionLog[];
}

export function checkCodec(codec: number): void {
  if (!isSupportedCodec(codec)) {
    throw new HandlerError(ErrorCode.INTERNAL, `compression codec ${codec} unavailable on this broker`);
  }
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** Inside a transaction, records are stored with attrs 0x08 and the producer's pid and epoch. */
export interface TransactionalMarks {
  producerId: bigint;
  epoch: number;
}

function toStore(
  codec: number,
  timestamp: bigint,
  r: IncomingRecord,
  marks: TransactionalMarks | undefined,
): RecordToStore {
  const stored: RecordToStore = {
    attrs: codec,
    timestamp,
    key: r.key,
    value: compressValue(codec, r.value),
    headers: r.headers,
  };
  if (marks) {
    stored.producerId = marks.producerId;
    stored.epoch = marks.epoch;
  }
  return stored;
}

/** Where each record of a produce goes: partition per record (list order) and the records per partition. */
export interface AppendPlan {
  assigned: Uint16Array;
  /** partition id → list indexes, in order of first appearance. */
  groups: Map<number, number[]>;
}

/** Partitions every record (key hash or sticky, advancing the sticky counter per record), appending nothing. */
export function planAppend(broker: BrokerCore, topic: Topic, records: readonly IncomingRecord[]): AppendPlan {
  const n = records.length;
  const count = topic.partitions.length;
  const partitioner = broker.topics.partitioner;
  const assigned = new Uint16Array(n);
  const groups = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const p = partitioner.partitionFor(topic.name, records[i]!.key, count);
    assigned[i] = p;
    let g = groups.get(p);
    if (!g) groups.set(p, (g = []));
    g.push(i);
  }
  return { assigned, groups };
}

/**
 * Appends `records` in list order: each is partitioned (key hash or sticky), then one append call per touched
 * partition in order of first appearance, so a batch that succeeds costs one write per partition. On a failure the
 * remaining partitions append only the records before the first one that did not land, and records already written
 * to other partitions past it are truncated away again: the acks cover a list-order prefix and nothing after it is on disk,
 * so a client resending the tail duplicates nothing (seeds/000: "a failure part-way leaves the prefix").
 */
export function appendRecords(
  broker: BrokerCore,
  topic: Topic,
  codec: number,
  records: readonly IncomingRecord[],
): ProduceOutcome {
  return appendPlanned(broker, topic, codec, records, planAppend(broker, topic, records));
}

/** appendRecords for a plan made beforehand (a transaction enrols the plan's partitions in between). */
export function appendPlanned(
  broker: BrokerCore,
  topic: Topic,
  codec: number,
  records: readonly IncomingRecord[],
  plan: AppendPlan,
  marks?: TransactionalMarks,
): ProduceOutcome {
  return appendPrepared(broker, topic, plan, prepareRecords(broker, codec, records, plan, marks));
}

/** The records of a produce as they will be stored, encoded before anything is appended. */
export interface PreparedRecords {
  /** By list index; only the indexes below `bound` are filled. */
  stored: RecordToStore[];
  /** The list index of the first record that cannot be stored (records.length when all can). */
  bound: number;
  /** Why the record at `bound` cannot be stored. */
  error: Error | undefined;
}

/**
 * Compresses and stamps every record (one broker timestamp for the whole produce). A value that cannot be
 * compressed ends the produce at that record, like a write failing there: the records after it are not prepared.
 */
export function prepareRecords(
  broker: BrokerCore,
  codec: number,
  records: readonly IncomingRecord[],
  plan: AppendPlan,
  marks?: TransactionalMarks,
): PreparedRecords {
  const timestamp = broker.now();
  const stored: RecordToStore[] = [];
  let bound = records.length;
  let error: Error | undefined;
  // Partition order, then list order inside a partition, as the appends go: the first failure in that order bounds
  // the prefix, exactly as a failing write would.
  for (const indexes of plan.groups.values()) {
    for (const i of indexes) {
      if (i >= bound) break;
      try {
        stored[i] = toStore(codec, timestamp, records[i]!, marks);
      } catch (err) {
        bound = i;
        error = asError(err);
        break;
      }
    }
  }
  return { stored, bound, error };
}

/** The records below `bound` grouped per partition, in the plan's order: what each partition's append gets. */
export function preparedBatches(
  plan: AppendPlan,
  prepared: PreparedRecords,
): Map<number, { indexes: number[]; batch: RecordToStore[] }> {
  const out = new Map<number, { indexes: number[]; batch: RecordToStore[] }>();
  for (const [p, indexes] of plan.groups) {
    const taken = indexes.filter((i) => i < prepared.bound);
    out.set(p, { indexes: taken, batch: taken.map((i) => prepared.stored[i]!) });
  }
  return out;
}

/**
 * Appends prepared records, one append call per partition in the plan's order; see appendRecords for the prefix
 * rule. `afterAppend` runs after each partition's append (a test-only crash point hooks in there).
 */
export function appendPrepared(
  broker: BrokerCore,
  topic: Topic,
  plan: AppendPlan,
  prepared: PreparedRecords,
  afterAppend?: (partition: number) => void,
): ProduceOutcome {
  const n = plan.assigned.length;
  const partitions = topic.partitions;
  const { assigned, groups } = plan;
  const offsets = new Array<bigint | undefined>(n);
  const toSync: PartitionLog[] = [];
  let error = prepared.error;
  // The list index of the first record known not to land: after a failure, later partitions only take the records
  // before it, so the prefix is as long as the failure allows.
  let bound = prepared.bound;
  for (const [p, indexes] of groups) {
    const log = partitions[p - 1]!;
    const batch: RecordToStore[] = [];
    for (const i of indexes) {
      if (i >= bound) break;
      batch.push(prepared.stored[i]!);
    }
    let result: AppendResult;
    try {
      result = batch.length > 0 ? log.append(batch) : { offsets: [] };
    } catch (err) {
      result = { offsets: [], error: asError(err) };
    }
    afterAppend?.(p);
    for (let j = 0; j < result.offsets.length; j++) offsets[indexes[j]!] = result.offsets[j];
    if (result.offsets.length > 0) toSync.push(log);
    const failedAt = result.error ? indexes[result.offsets.length] : undefined;
    if (failedAt !== undefined && failedAt < bound) {
      bound = failedAt;
      error = result.error;
    }
  }
  const acks: ProduceAck[] = [];
  for (let i = 0; i < n; i++) {
    const offset = offsets[i];
    if (offset === undefined) break;
    acks.push({ partition: assigned[i]!, offset });
  }
  if (error) takeBackPastPrefix(broker, partitions, groups, offsets, acks.length);
  return { acks, error, toSync: broker.config.acks === 'none' ? [] : toSync };
}

/**
 * Truncates, in every partition, the records whose list index is past `prefix` (the first record that did not
 * land). They were appended but will not be acked; the truncation rides on the sync that follows.
 */
function takeBackPastPrefix(
  broker: BrokerCore,
  partitions: readonly PartitionLog[],
  groups: ReadonlyMap<number, readonly number[]>,
  offsets: readonly (bigint | undefined)[],
  prefix: number,
): void {
  for (const [p, indexes] of groups) {
    const first = indexes.find((i) => i >= prefix && offsets[i] !== undefined);
    if (first === undefined) continue;
    const log = partitions[p - 1]!;
    try {
      if (!log.truncateTo) throw new Error(`the ${log.backend} backend cannot truncate`);
      log.truncateTo(offsets[first]!);
    } catch (err) {
      broker.logger.error('unacked records of a partial batch stay on disk', {
        dir: log.dir,
        offset: String(offsets[first]),
        error: String(err),
      });
    }
  }
}

/**
 * acks=leader: one (group-committed) sync per touched partition, all in parallel. One partition's sync promise is
 * returned as it is, without a wrapping async frame: a one-record produce's reply is that many microtasks sooner.
 */
export function syncAll(logs: readonly PartitionLog[]): Promise<void> {
  try {
    if (logs.length === 1) return logs[0]!.sync();
    if (logs.length === 0) return Promise.resolve();
    return Promise.all(logs.map((l) => l.sync())).then(() => undefined);
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}

/**
 * Sends `reply` once every log in `toSync` is durable. On a ServerConnection the handler returns at once and the
 * reply is ordered behind earlier ones, so pipelined produces share fsyncs; elsewhere it simply awaits.
 */
export function replyWhenDurable(
  conn: ConnectionHandle,
  toSync: readonly PartitionLog[],
  reply: () => void,
  op: number,
  correl: Buffer,
): Promise<void> | undefined {
  return replyWhenSynced(conn, toSync.length === 0 ? undefined : syncAll(toSync), reply, op, correl);
}

/** replyWhenDurable for syncs already requested: `synced` settles once the logs are durable (undefined: at once). */
export function replyWhenSynced(
  conn: ConnectionHandle,
  synced: Promise<void> | undefined,
  reply: () => void,
  op: number,
  correl: Buffer,
): Promise<void> | undefined {
  if (synced === undefined) {
    reply();
    return undefined;
  }
  const ordered = conn.session.get(SESSION_ORDERED_REPLIES) as OrderedReplies | undefined;
  if (ordered) return ordered.after(synced, reply, op, correl);
  return synced.then(reply);
}
