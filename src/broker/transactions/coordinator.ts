/**
 * The transaction coordinator (semantics.md §10). One transaction per durable producer name (the transaction id),
 * owned by the connection that sent BEGIN_TXN. Its state changes follow state-table.ts and are persisted on
 * `__transaction_state` at enrolment (ONGOING with the participants), at the decision (PREPARE_*) and at the end
 * (COMPLETE_*). Work on one transaction is serialized, so a dropped connection's abort never interleaves with an
 * END_TXN already running.
 *
 * Readers ask it for the LSO of a partition (the lowest first_offset of the unresolved transactions touching it,
 * else the LEO) and for the abort-index filter of a partition.
 *
 * Decisions taken here (the spec is silent): a BEGIN_TXN from a newer epoch aborts an older epoch's open
 * transaction (the old session is fenced anyway); a transaction open longer than `timeoutMs` (default 15 min, the
 * Kafka broker's ceiling; 0 disables) is aborted, and its connection's next transactional request gets ERR 52 once.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import type { PartitionLog } from '../../storage/partition-log.js';
import { TxnState, type TxnPendingOffset, type TxnStateValue, txnStateName } from '../../storage/txn-state-codec.js';
import type { BrokerCore, Transactions } from '../core.js';
import { type ConnectionHandle, HandlerError } from '../handler.js';
import { type ProducerBinding, bindingOf } from '../producer-state/binding.js';
import { type AbortEntry, AbortIndex } from './abort-index.js';
import { abortEntries, applyOffsets, writeMarkers } from './resolution.js';
import { type TxnEvent, decisionStates, recovery, refusal, transition } from './state-table.js';
import type { TransactionOptions } from '../subsystem-options.js';
import {
  type Decision,
  type Transaction,
  checkTimedOut,
  clearTimedOut,
  markTimedOut,
  requireCurrentEpoch,
  serialize,
} from './transaction.js';
import { TRANSACTION_STATE_TOPIC, TxnStore, replayTxnState } from './txn-store.js';

export type { Transaction, TransactionOptions };

export const DEFAULT_TRANSACTION_TIMEOUT_MS = 15 * 60_000;

export class TransactionCoordinator implements Transactions {
  private readonly txns = new Map<string, Transaction>();
  private readonly unresolved = new Set<Transaction>();
  private store: TxnStore | undefined;
  private opening: Promise<TxnStore> | undefined;
  private abortIndex: AbortIndex | undefined;
  private timer: NodeJS.Timeout | undefined;
  readonly timeoutMs: number;

  constructor(
    private readonly broker: BrokerCore,
    options: TransactionOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TRANSACTION_TIMEOUT_MS;
  }

  /** Loads the abort index, replays `__transaction_state` and finishes what a crash left (PREPARE_COMMIT rolls forward). */
  async start(): Promise<void> {
    this.abortIndex = await AbortIndex.load(this.broker.dataDir);
    const topic = this.broker.topics.getTopic(TRANSACTION_STATE_TOPIC);
    if (topic) {
      this.store = new TxnStore(topic.partitions, () => this.broker.now());
      for (const [id, record] of replayTxnState(topic.partitions)) {
        const txn: Transaction = {
          id,
          ...record,
          state: record.state as TxnStateValue,
          owner: undefined,
          startedAt: this.broker.now(),
          busy: Promise.resolve(),
        };
        this.txns.set(id, txn);
        const decision = recovery[txn.state];
        if (!decision) continue;
        this.unresolved.add(txn);
        this.broker.logger.info('recovering transaction', {
          transactionId: id,
          state: txnStateName(txn.state),
          decision,
        });
        await this.resolve(txn, decision);
      }
    }
    if (this.timeoutMs > 0) {
      this.timer = setInterval(() => this.expire(), Math.max(50, Math.min(this.timeoutMs / 4, 10_000)));
      this.timer.unref();
    }
  }

  /** Called after every connection closed (their open transactions were aborted then). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await Promise.allSettled([...this.txns.values()].map((t) => t.busy));
    await this.store?.flush();
    await this.abortIndex?.flush();
  }

  /** The transaction with this id (for tests and tooling). */
  get(id: string): Transaction | undefined {
    return this.txns.get(id);
  }

  /** The abort index's entries, sorted (for tests and tooling). */
  get abortEntries(): readonly AbortEntry[] {
    return this.index.list();
  }

  /** min(first_offset) over unresolved transactions touching the partition, else the LEO. */
  lso(topic: string, partition: number, log: PartitionLog): bigint {
    let lso = log.logEndOffset;
    for (const txn of this.unresolved) {
      for (const p of txn.participants) {
        if (p.partition === partition && p.topic === topic && p.firstOffset < lso) lso = p.firstOffset;
      }
    }
    return lso;
  }

  /** The read_committed skip test for one partition, or undefined when nothing in it was aborted. */
  abortFilter(
    topic: string,
    partition: number,
  ): ((offset: bigint, producerId: bigint, epoch: number) => boolean) | undefined {
    return this.abortIndex?.filterFor(topic, partition);
  }

  /** After a cleaner run: drops abort entries below their partition's log start (or of a partition gone). */
  pruneAbortIndex(): Promise<number> {
    return this.index.prune(
      (topic, partition) => this.broker.topics.getTopic(topic)?.partitions[partition - 1]?.logStartOffset,
    );
  }

  // Requests

  async begin(conn: ConnectionHandle): Promise<void> {
    const binding = bindingOf(conn);
    const producer = binding?.durable;
    if (!binding || !producer) {
      throw new HandlerError(
        ErrorCode.INVALID_TXN_STATE,
        'BEGIN_TXN needs a durable producer: send INIT_PRODUCER_ID with a name first',
      );
    }
    requireCurrentEpoch(binding, producer);
    clearTimedOut(conn);
    const existing = this.txns.get(producer.name);
    if (existing && existing.state === TxnState.ONGOING && existing.epoch < binding.epoch) {
      this.broker.logger.info('aborting the open transaction of a fenced epoch', {
        transactionId: existing.id,
        epoch: existing.epoch,
      });
      await serialize(existing, () => this.resolveIf(existing, TxnState.ONGOING, 'abort'));
    }
    const current = this.txns.get(producer.name);
    const state = current?.state ?? TxnState.EMPTY;
    if (transition(state, 'begin') !== 'start')
      throw new HandlerError(ErrorCode.INVALID_TXN_STATE, refusal(state, 'begin'));
    const txn: Transaction = {
      id: producer.name,
      producerId: binding.producerId,
      epoch: binding.epoch,
      state: TxnState.ONGOING,
      participants: [],
      pendingOffsets: [],
      owner: conn,
      startedAt: this.broker.now(),
      busy: Promise.resolve(),
    };
    this.txns.set(txn.id, txn);
    this.unresolved.add(txn);
    if (!conn.session.has('transaction-close-hook')) {
      conn.session.set('transaction-close-hook', true);
      conn.onClose(() => this.onConnectionClosed(conn));
    }
  }

  /**
   * The open transaction a produce on this connection joins, or undefined when there is none (the produce is then
   * not transactional). ERR 52 when the connection's transaction timed out and was not ended since.
   */
  activeFor(conn: ConnectionHandle, binding: ProducerBinding): Transaction | undefined {
    checkTimedOut(conn);
    const producer = binding.durable;
    if (!producer) return undefined;
    const txn = this.txns.get(producer.name);
    return txn && txn.owner === conn && txn.state === TxnState.ONGOING ? txn : undefined;
  }

  /**
   * Records the current LEO as first_offset of each partition the transaction has not touched yet and persists
   * ONGOING with the new participants before any of its records is appended there, so that a crash can never
   * leave transactional data that no participant names. Undefined when every partition was already enrolled.
   */
  enrol(
    txn: Transaction,
    topic: string,
    partitions: ReadonlyArray<{ partition: number; log: PartitionLog }>,
  ): Promise<void> | undefined {
    const fresh = partitions.filter(
      ({ partition }) => !txn.participants.some((p) => p.topic === topic && p.partition === partition),
    );
    if (fresh.length === 0) return undefined;
    return serialize(txn, async () => {
      this.require(txn, txn.owner, 'produce');
      const added = fresh.map(({ partition, log }) => ({ topic, partition, firstOffset: log.logEndOffset }));
      txn.participants.push(...added);
      try {
        await this.persist(txn);
      } catch (err) {
        txn.participants = txn.participants.filter((p) => !added.includes(p));
        throw err;
      }
    });
  }

  /** TXN_OFFSET_COMMIT: buffers the offsets (a later entry for the same key replaces an earlier one). */
  addOffsets(
    conn: ConnectionHandle,
    group: string,
    offsets: ReadonlyArray<{ topic: string; partition: number; offset: bigint }>,
  ): void {
    const txn = this.owned(conn, 'offsets');
    for (const o of offsets) {
      const same = (p: TxnPendingOffset): boolean =>
        p.group === group && p.topic === o.topic && p.partition === o.partition;
      txn.pendingOffsets = txn.pendingOffsets.filter((p) => !same(p));
      txn.pendingOffsets.push({ group, topic: o.topic, partition: o.partition, offset: o.offset });
    }
  }

  /** END_TXN: commit or abort the connection's transaction, or finish / confirm its producer's last one. */
  async end(conn: ConnectionHandle, decision: Decision): Promise<void> {
    checkTimedOut(conn, true);
    const binding = bindingOf(conn);
    const producer = binding?.durable;
    const txn = producer ? this.txns.get(producer.name) : undefined;
    if (!binding || !producer || !txn)
      throw new HandlerError(ErrorCode.INVALID_TXN_STATE, 'no transaction in progress');
    requireCurrentEpoch(binding, producer);
    // Another epoch's transaction, or one still open on another connection, is not this session's to end.
    if (txn.epoch !== binding.epoch || (txn.state === TxnState.ONGOING && txn.owner !== conn)) {
      throw new HandlerError(ErrorCode.INVALID_TXN_STATE, 'no transaction in progress');
    }
    await serialize(txn, async () => {
      const action = this.require(txn, undefined, decision);
      if (action !== 'done') await this.resolve(txn, decision);
    });
  }

  // Internals

  private get index(): AbortIndex {
    if (!this.abortIndex) throw new Error('the transaction coordinator has not started');
    return this.abortIndex;
  }

  private owned(conn: ConnectionHandle, event: TxnEvent): Transaction {
    checkTimedOut(conn);
    const producer = bindingOf(conn)?.durable;
    const txn = producer ? this.txns.get(producer.name) : undefined;
    if (!txn || txn.owner !== conn) throw new HandlerError(ErrorCode.INVALID_TXN_STATE, refusal(TxnState.EMPTY, event));
    this.require(txn, conn, event);
    return txn;
  }

  /** The table's action for `event`, else ERR 51 naming why. */
  private require(
    txn: Transaction,
    owner: ConnectionHandle | undefined,
    event: TxnEvent,
  ): ReturnType<typeof transition> {
    const action = transition(txn.state, event);
    if (!action || (owner !== undefined && txn.owner !== owner)) {
      throw new HandlerError(ErrorCode.INVALID_TXN_STATE, refusal(txn.state, event));
    }
    return action;
  }

  private async resolveIf(txn: Transaction, state: TxnStateValue, decision: Decision): Promise<void> {
    if (txn.state === state) await this.resolve(txn, decision);
  }

  /**
   * PREPARE_<decision> (unless already prepared), markers, offsets or abort-index entries, COMPLETE_<decision>.
   * A failure leaves the transaction prepared and unresolved: a repeated END_TXN or the next start finishes it.
   */
  private async resolve(txn: Transaction, decision: Decision): Promise<void> {
    const states = decisionStates[decision];
    if (txn.state !== states.prepare) {
      const before = txn.state;
      txn.state = states.prepare;
      try {
        await this.persist(txn);
      } catch (err) {
        txn.state = before;
        throw err;
      }
    }
    if (decision === 'commit') this.broker.config.faults?.crashPoint?.('after-prepare-commit');
    const markers = await writeMarkers(this.broker, txn, decision);
    if (decision === 'commit') await applyOffsets(this.broker, txn.pendingOffsets);
    else await this.index.add(abortEntries(txn, markers));
    txn.state = states.complete;
    txn.participants = [];
    txn.pendingOffsets = [];
    this.unresolved.delete(txn);
    await this.persist(txn);
  }

  private async persist(txn: Transaction): Promise<void> {
    const store = this.store ?? (await this.openStore());
    await store.write(txn.id, {
      producerId: txn.producerId,
      epoch: txn.epoch,
      state: txn.state,
      participants: txn.participants,
      pendingOffsets: txn.pendingOffsets,
    });
  }

  private openStore(): Promise<TxnStore> {
    // internalLog creates the topic (commitlog, compact, 8 MiB, 16 partitions, sidecar) on first use.
    this.opening ??= this.broker.internalLog(TRANSACTION_STATE_TOPIC, 1).then(() => {
      this.store ??= new TxnStore(this.broker.topics.getTopic(TRANSACTION_STATE_TOPIC)!.partitions, () =>
        this.broker.now(),
      );
      return this.store;
    });
    return this.opening;
  }

  /** A dropped connection aborts its open transaction; a prepared one is finished with its decision. */
  private async onConnectionClosed(conn: ConnectionHandle): Promise<void> {
    for (const txn of [...this.unresolved]) {
      if (txn.owner !== conn) continue;
      await serialize(txn, async () => {
        const decision = recovery[txn.state];
        if (!decision || txn.owner !== conn) return;
        this.broker.logger.info('connection closed mid-transaction', { transactionId: txn.id, decision });
        await this.resolve(txn, decision);
      }).catch((err: unknown) => {
        this.broker.logger.error('could not end the transaction of a closed connection', {
          transactionId: txn.id,
          error: String(err),
        });
      });
    }
  }

  /** Aborts ONGOING transactions older than timeoutMs; their connection's next transactional request gets ERR 52. */
  private expire(): void {
    const now = this.broker.now();
    for (const txn of [...this.unresolved]) {
      if (txn.state !== TxnState.ONGOING || now - txn.startedAt < BigInt(this.timeoutMs)) continue;
      markTimedOut(txn, `transaction '${txn.id}' timed out after ${this.timeoutMs} ms and was aborted`);
      this.broker.logger.warn('transaction timed out; aborting it', {
        transactionId: txn.id,
        timeoutMs: this.timeoutMs,
      });
      void serialize(txn, () => this.resolveIf(txn, TxnState.ONGOING, 'abort')).catch((err: unknown) => {
        this.broker.logger.error('could not abort a timed-out transaction', {
          transactionId: txn.id,
          error: String(err),
        });
      });
    }
  }
}
