/**
 * The steps that end a transaction once its decision is persisted (semantics.md §10): one COMMIT or ABORT control
 * record per participant partition, fsynced; on commit the buffered offsets reach `__consumer_offsets`; on abort
 * each participant's range [first_offset, marker offset) becomes an abort-index entry.
 *
 * Control record: attrs 0x04, empty key, value u8 marker (0 ABORT, 1 COMMIT) · u64 pid · u16 epoch (11 bytes).
 */
import { ControlMarker, RecordAttr, encodeControlValue } from '../../storage/record.js';
import type { TxnParticipant, TxnPendingOffset } from '../../storage/txn-state-codec.js';
import type { PartitionLog } from '../../storage/partition-log.js';
import { consumerRuntimeOf } from '../consumer/index.js';
import type { BrokerCore } from '../core.js';
import { syncAll } from '../produce-path.js';
import type { AbortEntry } from './abort-index.js';
import type { Decision } from './transaction.js';

export interface WrittenMarker {
  participant: TxnParticipant;
  /** Where the marker landed: the end of the transaction's range in that partition. */
  markerOffset: bigint;
}

const EMPTY_KEY = Buffer.alloc(0);

/**
 * Appends the decision's marker to every participant that still exists (a deleted topic or partition is skipped
 * with a warning: its data went with it) and fsyncs them all. Throws when a marker cannot be written; the
 * transaction then stays prepared and a repeated END_TXN (or the next start) writes the markers again.
 */
export async function writeMarkers(
  broker: BrokerCore,
  txn: { producerId: bigint; epoch: number; participants: readonly TxnParticipant[] },
  decision: Decision,
): Promise<WrittenMarker[]> {
  const marker = decision === 'commit' ? ControlMarker.COMMIT : ControlMarker.ABORT;
  const value = encodeControlValue(marker, txn.producerId, txn.epoch);
  const timestamp = broker.now();
  const written: WrittenMarker[] = [];
  const logs: PartitionLog[] = [];
  for (const participant of txn.participants) {
    const log = broker.topics.getTopic(participant.topic)?.partitions[participant.partition - 1];
    if (!log) {
      broker.logger.warn('transaction participant no longer exists; no marker written', {
        topic: participant.topic,
        partition: participant.partition,
      });
      continue;
    }
    const result = log.append([{ attrs: RecordAttr.CONTROL, timestamp, key: EMPTY_KEY, value }]);
    if (result.error) throw result.error;
    written.push({ participant, markerOffset: result.offsets[0]! });
    logs.push(log);
  }
  // Markers are fsynced whatever the acks mode: the decision must survive a crash once it was answered.
  await syncAll(logs);
  return written;
}

/** Applies a committed transaction's buffered offsets, one commit per group; resolves once they are durable. */
export async function applyOffsets(broker: BrokerCore, pending: readonly TxnPendingOffset[]): Promise<void> {
  if (pending.length === 0) return;
  const byGroup = new Map<string, { topic: string; partition: number; offset: bigint }[]>();
  for (const o of pending) {
    let list = byGroup.get(o.group);
    if (!list) byGroup.set(o.group, (list = []));
    list.push({ topic: o.topic, partition: o.partition, offset: o.offset });
  }
  const offsets = consumerRuntimeOf(broker).offsets;
  await Promise.all([...byGroup].map(([group, commits]) => offsets.commit(group, commits)));
}

/** The abort-index entries for an aborted transaction's markers (empty ranges are left out). */
export function abortEntries(
  txn: { producerId: bigint; epoch: number },
  markers: readonly WrittenMarker[],
): AbortEntry[] {
  return markers
    .filter((m) => m.participant.firstOffset < m.markerOffset)
    .map((m) => ({
      topic: m.participant.topic,
      partition: m.participant.partition,
      producerId: txn.producerId,
      epoch: txn.epoch,
      first: m.participant.firstOffset,
      upto: m.markerOffset,
    }));
}
