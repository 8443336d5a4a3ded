/**
 * The shared produce path: codec check, compression, broker timestamps, partitioning, grouped appends and the
 * acks-dependent sync. PRODUCE and PRODUCE_BATCH both go through here, so they partition and store identically.
 */
import { ErrorCode } from '../protocol/error-codes.js';
import { compressValue, isSupportedCodec } from '../protocol/compression.js';
import type { RecordHeader } from '../protocol/headers.js';
import type { ProduceAck } from '../protocol/messages/produce.js';
import type { PartitionLog, RecordToStore } from '../storage/partition-log.js';
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

function toStore(codec: number, timestamp: bigint, r: IncomingRecord): RecordToStore {
  return { attrs: codec, timestamp, key: r.key, value: compressValue(codec, r.value), headers: r.headers };
}

/**
 * Appends `records` in list order: each is partitioned (key hash or sticky), then one append call per touched
 * partition in order of first appearance. On a failure the remaining partitions are not attempted; the acks cover
 * the list-order prefix whose records all landed.
 */
export function appendRecords(broker: BrokerCore, topic: Topic, codec: number, records: readonly IncomingRecord[]): ProduceOutcome {
  const n = records.length;
  const partitions = topic.partitions;
  const count = partitions.length;
  const timestamp = broker.now();
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
  const offsets = new Array<bigint | undefined>(n);
  const toSync: PartitionLog[] = [];
  let error: Error | undefined;
  for (const [p, indexes] of groups) {
    const log = partitions[p - 1]!;
    const batch = new Array<RecordToStore>(indexes.length);
    for (let j = 0; j < indexes.length; j++) batch[j] = toStore(codec, timestamp, records[indexes[j]!]!);
    let result;
    try {
      result = log.append(batch);
    } catch (err) {
      result = { offsets: [], error: err instanceof Error ? err : new Error(String(err)) };
    }
    for (let j = 0; j < result.offsets.length; j++) offsets[indexes[j]!] = result.offsets[j];
    if (result.offsets.length > 0) toSync.push(log);
    if (result.error) {
      error = result.error;
      break;
    }
  }
  const acks: ProduceAck[] = [];
  for (let i = 0; i < n; i++) {
    const offset = offsets[i];
    if (offset === undefined) break;
    acks.push({ partition: assigned[i]!, offset });
  }
  return { acks, error, toSync: broker.config.acks === 'none' ? [] : toSync };
}

/** acks=leader: one (group-committed) sync per touched partition, all in parallel. */
export async function syncAll(logs: readonly PartitionLog[]): Promise<void> {
  if (logs.length === 1) await logs[0]!.sync();
  else if (logs.length > 1) await Promise.all(logs.map((l) => l.sync()));
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
  if (toSync.length === 0) {
    reply();
    return undefined;
  }
  const ordered = conn.session.get(SESSION_ORDERED_REPLIES) as OrderedReplies | undefined;
  if (ordered) return ordered.after(syncAll(toSync), reply, op, correl);
  return syncAll(toSync).then(reply);
}
