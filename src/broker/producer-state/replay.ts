/**
 * Start-up replay of `__producer_state` (semantics.md §6): partitions 1..16 front to back, the last record per key
 * wins, a tombstone deletes the key. Memo values are read as v2, then v1; a v3 tail counts only when whole (the
 * codec decides). An unknown tag is skipped with a warning.
 *
 * The broker refuses to start only when it cannot trust what it would dedup against: a record under a known tag
 * whose key or value cannot be read, and which no later record of the same key replaced. Losing such a memo would
 * let a retried batch land twice, so the error names the segment file and the record's offset instead.
 */
import path from 'node:path';
import { StorageError } from '../../errors.js';
import type { PartitionLog } from '../../storage/partition-log.js';
import {
  type ProducerStateEntry,
  type SequenceMemo,
  decodeProducerStateRecord,
} from '../../storage/producer-state-codec.js';
import type { Logger } from '../logger.js';
import { replayRecords } from '../internal-topic.js';

export interface ReplayedIdentity {
  producerId: bigint;
  epoch: number;
  /** Timestamp (ms) of the identity record: the start of the producer's idle clock. */
  writtenAt: bigint;
}

export interface ReplayedMemo {
  memo: SequenceMemo;
  writtenAt: bigint;
}

export interface ProducerStateSnapshot {
  identities: Map<string, ReplayedIdentity>;
  /** pid → topic → memo */
  memos: Map<bigint, Map<string, ReplayedMemo>>;
  watermark: bigint | undefined;
  /** The highest pid named by a surviving identity or memo key. */
  highestPid: bigint | undefined;
  records: number;
}

interface Located {
  file: string;
  offset: bigint;
}

type Slot = { ok: true; entry: ProducerStateEntry; timestamp: bigint } | { ok: false; detail: string; where: Located };

/** The segment file of a commit-log partition that holds `offset` (the partition dir when the backend hides it). */
export function segmentFileOf(log: PartitionLog, offset: bigint): string {
  const info = (log as Partial<{ segmentInfo: { base: bigint }[] }>).segmentInfo;
  if (!info || info.length === 0) return log.dir;
  let base = info[0]!.base;
  for (const s of info) if (s.base <= offset) base = s.base;
  return path.join(log.dir, `${base.toString().padStart(20, '0')}.log`);
}

export function replayProducerState(logs: readonly PartitionLog[], logger: Logger): ProducerStateSnapshot {
  const slots = new Map<string, Slot>();
  let records = 0;
  for (const { log, record: r } of replayRecords(logs)) {
    records++;
    const keyId = r.key.toString('hex');
    const decoded = decodeProducerStateRecord(r.key, r.value);
    if (decoded.ok) {
      slots.set(keyId, { ok: true, entry: decoded.value, timestamp: r.timestamp });
      const ignored = decoded.value.kind === 'memo' ? decoded.value.value?.ignoredTail : undefined;
      if (ignored) {
        const acts = ignored.part === 'v3' ? 'the memo acts as v2' : 'the memo acts as v3 without its window';
        logger.warn(`__producer_state memo ${ignored.part} tail ignored; ${acts}`, {
          file: segmentFileOf(log, r.offset),
          offset: r.offset.toString(),
          detail: `${ignored.bytes} bytes at value byte ${ignored.at}: ${ignored.problem}`,
        });
      }
    } else if (decoded.problem === 'unknown-tag' || decoded.problem === 'empty-key') {
      logger.warn('skipping a __producer_state record with an unknown key tag', {
        file: segmentFileOf(log, r.offset),
        offset: r.offset.toString(),
        detail: decoded.detail,
      });
    } else {
      slots.set(keyId, {
        ok: false,
        detail: decoded.detail,
        where: { file: segmentFileOf(log, r.offset), offset: r.offset },
      });
    }
  }
  return build(slots, records);
}

function build(slots: Map<string, Slot>, records: number): ProducerStateSnapshot {
  const snapshot: ProducerStateSnapshot = {
    identities: new Map(),
    memos: new Map(),
    watermark: undefined,
    highestPid: undefined,
    records,
  };
  const seePid = (pid: bigint): void => {
    if (snapshot.highestPid === undefined || pid > snapshot.highestPid) snapshot.highestPid = pid;
  };
  for (const slot of slots.values()) {
    if (!slot.ok) {
      throw new StorageError(
        `cannot trust __producer_state: ${slot.where.file} record at offset ${slot.where.offset}: ${slot.detail}`,
      );
    }
    const { entry, timestamp } = slot;
    if (entry.kind === 'identity') {
      if (!entry.value) continue;
      snapshot.identities.set(entry.producerName, { ...entry.value, writtenAt: timestamp });
      seePid(entry.value.producerId);
    } else if (entry.kind === 'memo') {
      if (!entry.value) continue;
      let topics = snapshot.memos.get(entry.producerId);
      if (!topics) snapshot.memos.set(entry.producerId, (topics = new Map<string, ReplayedMemo>()));
      topics.set(entry.topic, { memo: entry.value, writtenAt: timestamp });
      seePid(entry.producerId);
    } else {
      snapshot.watermark = entry.value;
    }
  }
  return snapshot;
}
