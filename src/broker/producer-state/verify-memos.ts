/**
 * Start-up check of the last memo of each (pid, topic) against the data (semantics.md, Idempotence). The produce
 * path appends a memo with the predicted acks before the data, in one synchronous stretch (idempotent-produce.ts),
 * so a process killed there leaves a memo whose records are missing or partly missing, and nothing appended after
 * them. Each ack is classified:
 *
 *   present   a record starts exactly at the offset
 *   missing   the offset is at or past the LEO (never written, or a torn write recovery cut away)
 *   gone      below the log start (retention), or below the LEO where no record starts (compaction, damage)
 *
 * No missing ack: the request landed, the memo stays (a gone ack cannot belong to a request that died mid-write: the
 * data of such a request is always the partition's tail). Some missing: the request did not finish. Its present
 * records must be the tails of their partitions and none of its acks may be gone, otherwise the state cannot be
 * trusted and the broker refuses to start. The present records are truncated away and fsynced, and the memo is
 * replaced by the state before the request, so the client's resend (it never got an ack) lands fresh, once: for a
 * windowed producer the newest batch of the memo's window becomes the memo again, with the rest of the window (its
 * batches were in flight too, and a resend of any of them must still be a duplicate); else a "no ack" memo at the
 * sequence before the request.
 */
import { StorageError } from '../../errors.js';
import type { PartitionLog } from '../../storage/partition-log.js';
import { type MemoAck, NO_ACK_PARTITION, type SequenceMemo, isNoAckMemo } from '../../storage/producer-state-codec.js';
import type { Logger } from '../logger.js';
import type { ProducerStateSnapshot } from './replay.js';
import { lastSeqOf } from './sequence-table.js';

type AckState = { kind: 'present'; end: bigint } | { kind: 'missing' } | { kind: 'gone'; why: string };

export interface MemoRepair {
  producerId: bigint;
  topic: string;
  /** The memo as replayed. */
  memo: SequenceMemo;
  /** The "no ack" memo that replaces it. */
  replacement: SequenceMemo;
  /** The records taken back: partition and the offset its log was truncated to. */
  truncated: MemoAck[];
}

function classify(log: PartitionLog, offset: bigint): AckState {
  if (offset >= log.logEndOffset) return { kind: 'missing' };
  if (offset < log.logStartOffset) return { kind: 'gone', why: `below the log start ${log.logStartOffset}` };
  try {
    const [r] = log.read(offset, { maxRecords: 1 });
    if (r && r.offset === offset) return { kind: 'present', end: r.nextOffset };
    return { kind: 'gone', why: 'no record starts there' };
  } catch (err) {
    return { kind: 'gone', why: `unreadable: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** The ack list a memo names: the v3 batch, else its single last ack. */
export function memoAcks(memo: SequenceMemo): readonly MemoAck[] {
  return memo.batch?.acks ?? [{ partition: memo.lastPartition, offset: memo.lastOffset }];
}

/** The "no ack" memo for the sequence before the memo's request (−1 is stored as 0xFFFFFFFF). */
export function nothingLandedMemo(memo: SequenceMemo): SequenceMemo {
  const first = memo.batch ? memo.batch.baseSeq : memo.lastSeq;
  return {
    version: 2,
    lastSeq: (first - 1) >>> 0,
    lastOffset: 0n,
    lastPartition: NO_ACK_PARTITION,
    epoch: memo.epoch,
    batch: undefined,
  };
}

/**
 * The memo before the interrupted request `memo` names: the newest batch of its window as a v3 memo with the older
 * ones as its window, when that batch ends right before the request and the logs hold every record the window names
 * (checked after the request's records were truncated); else the "no ack" memo.
 */
export function memoBefore(memo: SequenceMemo, logs: readonly PartitionLog[]): SequenceMemo {
  const [newest, ...older] = memo.window ?? [];
  const contiguous =
    newest !== undefined &&
    memo.batch !== undefined &&
    lastSeqOf(newest.baseSeq, newest.acks.length + 1) === memo.batch.baseSeq;
  const last = newest?.acks[newest.acks.length - 1];
  if (!contiguous || !last || !windowBacked(memo.window, logs)) return nothingLandedMemo(memo);
  return {
    version: 3,
    lastSeq: lastSeqOf(newest.baseSeq, newest.acks.length),
    lastOffset: last.offset,
    lastPartition: last.partition,
    epoch: memo.epoch,
    batch: { baseSeq: newest.baseSeq, acks: [...newest.acks] },
    window: older.length > 0 ? older : undefined,
  };
}

/**
 * Checks every surviving memo with an epoch (v1 memos never dedup and were written data-first) against the topics'
 * logs, truncates what interrupted requests left and returns the repairs (the caller persists the replacements and
 * updates the snapshot). Throws a StorageError naming producer, topic and partition when the state cannot be
 * trusted.
 */
export async function verifyLastMemos(
  snapshot: ProducerStateSnapshot,
  partitionsOf: (topic: string) => readonly PartitionLog[] | undefined,
  logger: Logger,
): Promise<MemoRepair[]> {
  const names = new Map<bigint, string>();
  for (const [name, identity] of snapshot.identities) names.set(identity.producerId, name);
  const repairs: MemoRepair[] = [];
  for (const [producerId, topics] of snapshot.memos) {
    const who = `producer '${names.get(producerId) ?? '(no identity)'}' (pid ${producerId})`;
    for (const [topic, { memo }] of topics) {
      if (memo.epoch === undefined || isNoAckMemo(memo)) continue;
      const logs = checkedLogs(partitionsOf(topic), memo, producerId, topic, logger);
      if (!logs) continue;
      const repair = await repairMemo({ producerId, topic, memo, logs, who }, logger);
      if (repair) repairs.push(repair);
      else dropUnbackedWindow(memo, logs, { producerId: producerId.toString(), topic }, logger);
    }
  }
  return repairs;
}

/** The topic's logs when every ack of the memo names one of them; otherwise a warning and undefined (not checked). */
function checkedLogs(
  logs: readonly PartitionLog[] | undefined,
  memo: SequenceMemo,
  producerId: bigint,
  topic: string,
  logger: Logger,
): readonly PartitionLog[] | undefined {
  const outOfRange = memoAcks(memo).find((a) => !logs || a.partition < 1 || a.partition > logs.length);
  if (logs && !outOfRange) return logs;
  logger.warn('a __producer_state memo names a partition that does not exist; not checked against the data', {
    producerId: producerId.toString(),
    topic,
    partition: outOfRange?.partition,
  });
  return undefined;
}

interface MemoCheck {
  producerId: bigint;
  topic: string;
  memo: SequenceMemo;
  logs: readonly PartitionLog[];
  /** The producer as the error names it. */
  who: string;
}

/**
 * Undefined when every record the memo names is in the logs. Otherwise the request was interrupted: its records are
 * truncated (each partition from the first one present) and synced, and the repair says what replaces the memo.
 */
async function repairMemo(check: MemoCheck, logger: Logger): Promise<MemoRepair | undefined> {
  const { producerId, topic, memo, logs } = check;
  const acks = memoAcks(memo);
  const states = acks.map((a) => classify(logs[a.partition - 1]!, a.offset));
  if (!states.some((s) => s.kind === 'missing')) return undefined;
  const fail = (partition: number, why: string): never => {
    throw new StorageError(
      `cannot trust __producer_state: ${check.who}, topic '${topic}' partition ${partition}: the last memo names ` +
        `records that are missing (the broker died inside that request's writes), but ${why}`,
    );
  };
  states.forEach((s, i) => {
    if (s.kind === 'gone') fail(acks[i]!.partition, `its ack at offset ${acks[i]!.offset} is ${s.why}`);
  });
  const { firstPresent, lastEnd } = landed(acks, states);
  for (const [partition, end] of lastEnd) {
    const log = logs[partition - 1]!;
    if (log.logEndOffset !== end) {
      fail(partition, `its records there end at ${end} and the log goes on to ${log.logEndOffset}`);
    }
    if (!log.truncateTo) fail(partition, `the ${log.backend} backend cannot truncate them`);
  }
  const truncated: MemoAck[] = [];
  for (const [partition, offset] of firstPresent) {
    logs[partition - 1]!.truncateTo!(offset);
    truncated.push({ partition, offset });
  }
  await Promise.all(truncated.map((t) => logs[t.partition - 1]!.sync()));
  const replacement = memoBefore(memo, logs);
  logger.warn('an idempotent request did not finish before the broker stopped; its records are taken back', {
    producerId: producerId.toString(),
    topic,
    lastSeq: replacement.lastSeq,
    truncated: truncated.map((t) => `${t.partition}@${t.offset}`),
  });
  return { producerId, topic, memo, replacement, truncated };
}

/** Per partition, the offset of the first record of the request that landed and the end of its last one. */
function landed(
  acks: readonly MemoAck[],
  states: readonly AckState[],
): { firstPresent: Map<number, bigint>; lastEnd: Map<number, bigint> } {
  const firstPresent = new Map<number, bigint>();
  const lastEnd = new Map<number, bigint>();
  states.forEach((s, i) => {
    if (s.kind !== 'present') return;
    const { partition, offset } = acks[i]!;
    if (!firstPresent.has(partition)) firstPresent.set(partition, offset);
    lastEnd.set(partition, s.end);
  });
  return { firstPresent, lastEnd };
}

/**
 * A crater window (older batches of a windowed producer) is kept only when every record it names is in the logs: a
 * power loss can take an older batch's unsynced records while a later memo survived, and a resend of that batch
 * must then not be answered with acks for records that are gone (it gets ERR 11 instead).
 */
function dropUnbackedWindow(
  memo: SequenceMemo,
  logs: readonly PartitionLog[],
  who: { producerId: string; topic: string },
  logger: Logger,
): void {
  if (windowBacked(memo.window, logs)) return;
  memo.window = undefined;
  logger.warn('a __producer_state window names records that are gone; its older batches are not deduplicated', who);
}

/** Whether every record a window names is below its log's end (no window: true). */
function windowBacked(window: SequenceMemo['window'], logs: readonly PartitionLog[]): boolean {
  return !window?.some((b) =>
    b.acks.some((a) => {
      const log = logs[a.partition - 1];
      return !log || a.offset >= log.logEndOffset;
    }),
  );
}
