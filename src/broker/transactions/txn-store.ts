/**
 * `__transaction_state` (semantics.md §10): commitlog, compact, 8 MiB segments, 16 partitions. Key = the
 * transaction id (the producer name); partition = fnv1a32(id) mod 16 + 1; the value layout is in
 * storage/txn-state-codec.ts. Every write is appended, then fsynced before the step it records goes on; syncs of
 * one partition are coalesced (one running, at most one follow-up), as for the other internal topics.
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

export { TRANSACTION_STATE_PARTITIONS, TRANSACTION_STATE_TOPIC };

const REPLAY_CHUNK = 4_096;

interface SyncSlot {
  inFlight: Promise<void> | undefined;
  next: Promise<void> | undefined;
}

export class TxnStore {
  private readonly syncs = new Map<PartitionLog, SyncSlot>();
  private readonly pending = new Set<Promise<void>>();
  /** Records appended since start (tests count them). */
  writeCount = 0;

  /** `partitions` is the topic's live partition array (index 0 = partition 1). */
  constructor(
    private readonly partitions: readonly PartitionLog[],
    private readonly now: () => bigint,
  ) {}

  /** Appends the transaction's state and resolves once it is durable; throws when the append fails. */
  write(transactionId: string, record: TxnStateRecord): Promise<void> {
    const key = encodeTxnStateKey(transactionId);
    const log = this.partitions[txnStatePartition(key, this.partitions.length) - 1]!;
    const result = log.append([{ attrs: 0, timestamp: this.now(), key, value: encodeTxnStateValue(record) }]);
    this.writeCount += result.offsets.length;
    if (result.error) throw result.error;
    return this.track(this.syncLog(log));
  }

  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private syncLog(log: PartitionLog): Promise<void> {
    let slot = this.syncs.get(log);
    if (!slot) this.syncs.set(log, (slot = { inFlight: undefined, next: undefined }));
    const s = slot;
    if (!s.inFlight) {
      s.inFlight = log.sync().finally(() => {
        s.inFlight = undefined;
      });
      return s.inFlight;
    }
    // The running fsync may have started before this append: one follow-up covers everyone arriving meanwhile.
    s.next ??= s.inFlight
      .catch(() => undefined)
      .then(() => {
        s.next = undefined;
        return this.syncLog(log);
      });
    return s.next;
  }

  private track(p: Promise<void>): Promise<void> {
    this.pending.add(p);
    const done = (): void => {
      this.pending.delete(p);
    };
    p.then(done, done);
    return p;
  }
}

type Slot = { ok: true; record: TxnStateRecord | undefined } | { ok: false; where: string; detail: string };

/** The last state of every transaction id, in partition then offset order of their last write. */
export function replayTxnState(logs: readonly PartitionLog[]): Map<string, TxnStateRecord> {
  const slots = new Map<string, Slot>();
  for (const log of logs) {
    let offset = log.logStartOffset;
    while (offset < log.logEndOffset) {
      const batch = log.read(offset, { maxRecords: REPLAY_CHUNK });
      if (batch.length === 0) break;
      for (const r of batch) {
        const id = r.key.toString('utf8');
        const decoded = decodeTxnStateValue(r.value);
        if (decoded.ok) slots.set(id, { ok: true, record: decoded.value });
        else slots.set(id, { ok: false, where: `${path.join(log.dir)} offset ${r.offset}`, detail: decoded.detail });
      }
      offset = batch[batch.length - 1]!.nextOffset;
    }
  }
  const out = new Map<string, TxnStateRecord>();
  for (const [id, slot] of slots) {
    if (!slot.ok) throw new StorageError(`cannot trust ${TRANSACTION_STATE_TOPIC}: transaction '${id}' at ${slot.where}: ${slot.detail}`);
    if (slot.record) out.set(id, slot.record);
  }
  return out;
}
