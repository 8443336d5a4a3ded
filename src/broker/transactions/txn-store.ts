/**
 * `__transaction_state` (semantics.md §10): commitlog, compact, 8 MiB segments, 16 partitions. Key = the
 * transaction id (the producer name); partition = fnv1a32(id) mod 16 + 1; the value layout is in
 * storage/txn-state-codec.ts. Every write is appended, then fsynced before the step it records goes on; syncs of
 * one partition are coalesced, as for the other internal topics (internal-topic.ts).
 *
 * Replay at start reads partitions 1..16 front to back; the last record per key wins and a tombstone deletes it.
 * An unreadable value that no later record replaced stops the start: the transaction it describes might hold
 * data that must be aborted or rolled forward, and guessing either way could expose or lose it.
 */
import path from 'node:path';
import { StorageError } from '../../errors.js';
import type { PartitionLog } from '../../storage/partition-log.js';
import {
  TRANSACTION_STATE_PARTITIONS,
  TRANSACTION_STATE_TOPIC,
  type TxnStateRecord,
  decodeTxnStateValue,
  encodeTxnStateKey,
  encodeTxnStateValue,
  txnStatePartition,
} from '../../storage/txn-state-codec.js';
import { KeyedInternalStore, replayRecords } from '../internal-topic.js';

export { TRANSACTION_STATE_PARTITIONS, TRANSACTION_STATE_TOPIC };

export class TxnStore extends KeyedInternalStore {
  /** `partitions` is the topic's live partition array (index 0 = partition 1). */
  constructor(partitions: readonly PartitionLog[], now: () => bigint) {
    super(partitions, now, txnStatePartition);
  }

  /** Appends the transaction's state and resolves once it is durable; throws when the append fails. */
  write(transactionId: string, record: TxnStateRecord): Promise<void> {
    return this.appendKeyed([{ key: encodeTxnStateKey(transactionId), value: encodeTxnStateValue(record) }]);
  }
}

type Slot = { ok: true; record: TxnStateRecord | undefined } | { ok: false; where: string; detail: string };

/** The last state of every transaction id, in partition then offset order of their last write. */
export function replayTxnState(logs: readonly PartitionLog[]): Map<string, TxnStateRecord> {
  const slots = new Map<string, Slot>();
  for (const { log, record: r } of replayRecords(logs)) {
    const id = r.key.toString('utf8');
    const decoded = decodeTxnStateValue(r.value);
    if (decoded.ok) slots.set(id, { ok: true, record: decoded.value });
    else slots.set(id, { ok: false, where: `${path.join(log.dir)} offset ${r.offset}`, detail: decoded.detail });
  }
  const out = new Map<string, TxnStateRecord>();
  for (const [id, slot] of slots) {
    if (!slot.ok)
      throw new StorageError(
        `cannot trust ${TRANSACTION_STATE_TOPIC}: transaction '${id}' at ${slot.where}: ${slot.detail}`,
      );
    if (slot.record) out.set(id, slot.record);
  }
  return out;
}
