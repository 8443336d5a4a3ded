/**
 * Client side of transactions (semantics.md §10) for a durable idempotent producer: BEGIN_TXN, sends that the
 * broker stores as transactional, TXN_OFFSET_COMMIT, END_TXN. All go through the producer's sink in order, on its
 * one connection.
 *
 * States: none → (begin) open → (a send fails) failed; commit from open, abort from open or failed, both → none.
 * While open, a lost connection is not resumed (the broker aborts a dropped connection's transaction): the send
 * fails and the transaction can only be aborted. END_TXN itself may be resent on a resumed session when its reply
 * was lost (a broker restart included): the broker answers a repeated decision with OK once it is taken, and the
 * opposite one with ERR 51, so commitTransaction() reports what really happened.
 */
import { BrokerError, ConnectionError, UsageError } from '../../errors.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { Caps, Limits } from '../../protocol/limits.js';
import type { SinkTransactions } from './sink.js';
import { validateString, validateTopicName } from '../validate.js';

export type TransactionState = 'none' | 'open' | 'failed';

export interface TransactionOffset {
  topic: string;
  partition: number;
  /** The next record the group should read (what a consumer commits). */
  offset: bigint;
}

export class TransactionManager {
  private current: TransactionState = 'none';
  private failure: Error | undefined;

  constructor(private readonly sink: SinkTransactions) {}

  get state(): TransactionState {
    return this.current;
  }

  get isOpen(): boolean {
    return this.current !== 'none';
  }

  async begin(): Promise<void> {
    if (this.current !== 'none') throw new UsageError('a transaction is already open: commit or abort it first');
    await this.sink.begin();
    this.current = 'open';
    this.failure = undefined;
  }

  /** Buffers the group's offsets in the transaction; they are committed with it, or dropped when it aborts. */
  async sendOffsets(group: string, offsets: readonly TransactionOffset[]): Promise<void> {
    this.requireOpen('sendOffsetsToTransaction');
    validateString('group', group, Caps.group);
    if (offsets.length === 0) return;
    if (offsets.length > Limits.txnOffsetEntries)
      throw new UsageError(`at most ${Limits.txnOffsetEntries} offsets per call, got ${offsets.length}`);
    for (const o of offsets) validateTopicName(o.topic);
    try {
      await this.sink.sendOffsets(group, offsets);
    } catch (error) {
      this.markFailed(error as Error);
      throw error;
    }
  }

  async commit(): Promise<void> {
    this.requireOpen('commitTransaction');
    if (this.current === 'failed') throw this.failedError();
    await this.end(true);
  }

  /**
   * Aborts. After a lost connection or a timeout (ERR 52) the broker has aborted already, which this reports as
   * success.
   */
  async abort(): Promise<void> {
    this.requireOpen('abortTransaction');
    try {
      await this.end(false);
    } catch (error) {
      const timedOut = error instanceof BrokerError && error.errorCode === ErrorCode.TRANSACTION_TIMED_OUT;
      if (!(error instanceof ConnectionError) && !timedOut) throw error;
    }
  }

  /** What a send or commit gets once a request inside the transaction failed. */
  failedError(): UsageError {
    return new UsageError(
      `a request in this transaction failed (${this.failure?.message ?? 'unknown error'}): abort it`,
    );
  }

  /** A send inside the transaction failed: only abort is possible from here. */
  markFailed(error: Error): void {
    if (this.current === 'open') {
      this.current = 'failed';
      this.failure = error;
    }
  }

  private async end(commit: boolean): Promise<void> {
    try {
      await this.sink.end(commit);
    } finally {
      this.current = 'none';
    }
  }

  private requireOpen(what: string): void {
    if (this.current === 'none') throw new UsageError(`${what}: no transaction is open (call beginTransaction first)`);
  }
}
