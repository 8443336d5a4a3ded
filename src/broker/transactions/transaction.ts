/**
 * One transaction as the coordinator (coordinator.ts) keeps it, and the checks every transactional request makes on
 * its connection before the state table is consulted: the producer epoch is current, the connection's transaction
 * did not time out. Apart from the coordinator so that the broker core's interface (core.ts) and the produce path
 * can name a transaction without importing the coordinator.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import type { TxnParticipant, TxnPendingOffset, TxnStateValue } from '../../storage/txn-state-codec.js';
import { type ConnectionHandle, HandlerError } from '../handler.js';
import type { DurableProducer, ProducerBinding } from '../producer-state/binding.js';

export type Decision = 'commit' | 'abort';

export interface Transaction {
  readonly id: string;
  readonly producerId: bigint;
  readonly epoch: number;
  state: TxnStateValue;
  participants: TxnParticipant[];
  pendingOffsets: TxnPendingOffset[];
  /** The connection that began it (undefined once recovered at start). */
  owner: ConnectionHandle | undefined;
  /** Broker clock (ms) at BEGIN_TXN. */
  readonly startedAt: bigint;
  /** The tail of the work serialized on this transaction. */
  busy: Promise<unknown>;
}

/** `conn.session` key: why the connection's transaction was aborted by the timeout, until reported once. */
const SESSION_TIMED_OUT = 'transaction-timed-out';

/** Runs `work` after everything already queued on the transaction. */
export function serialize<T>(txn: Transaction, work: () => Promise<T>): Promise<T> {
  const run = txn.busy.then(work, work);
  txn.busy = run.catch(() => undefined);
  return run;
}

/** ERR 50 unless the connection's epoch is its durable producer's current one. */
export function requireCurrentEpoch(binding: ProducerBinding, producer: DurableProducer): void {
  if (binding.epoch !== producer.epoch) {
    throw new HandlerError(
      ErrorCode.PRODUCER_FENCED,
      `producer epoch ${binding.epoch} is fenced: the current epoch is ${producer.epoch}`,
    );
  }
}

/** Marks the owner's connection: its next transactional request gets ERR 52 with this reason. */
export function markTimedOut(txn: Transaction, reason: string): void {
  txn.owner?.session.set(SESSION_TIMED_OUT, reason);
}

/** ERR 52 when the connection's transaction timed out (`clear`: and forget it, so it is reported once). */
export function checkTimedOut(conn: ConnectionHandle, clear = false): void {
  const timedOut = conn.session.get(SESSION_TIMED_OUT) as string | undefined;
  if (timedOut === undefined) return;
  if (clear) conn.session.delete(SESSION_TIMED_OUT);
  throw new HandlerError(ErrorCode.TRANSACTION_TIMED_OUT, timedOut);
}

/** A new BEGIN_TXN starts afresh: a timeout reported before no longer applies. */
export function clearTimedOut(conn: ConnectionHandle): void {
  conn.session.delete(SESSION_TIMED_OUT);
}
