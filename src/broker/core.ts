/**
 * What a request handler sees of the broker. Handlers (ours and the consumer side's) code against this interface,
 * never against the Broker class, so the TCP server, the topic registry and the consumer runtime stay separable.
 */
import type { PartitionLog } from '../storage/partition-log.js';
import type { Authenticator } from './auth.js';
import type { BrokerConfig } from './config.js';
import type { CrashPoint } from './fault-hooks.js';
import type { ConnectionHandle } from './handler.js';
import type { Logger } from './logger.js';
import type { ProducerBinding } from './producer-state/binding.js';
import type { SequenceState } from './producer-state/sequence-table.js';
import type { TopicRegistry } from './topics.js';
import type { Decision, Transaction } from './transactions/transaction.js';

export { type Logger, silentLogger } from './logger.js';

/** The consumer side (FETCH, SUBSCRIBE, groups, offsets): created once per broker, started after topics load. */
export interface ConsumerRuntime {
  start(): Promise<void>;
  /** Stops reaper timers and flushes the offset store; called after every connection has closed. */
  stop(): Promise<void>;
  /** A user topic was deleted: drop its offsets, assignments and cursors. */
  onTopicDeleted(name: string): void | Promise<void>;
}

/**
 * What handlers and the produce path ask of the producer state (producer-state/runtime.ts implements it; the
 * broker holds the class, which has more for tests and tooling).
 */
export interface ProducerStates {
  /** INIT_PRODUCER_ID: binds the connection to an ephemeral or a named producer (runtime.ts says how). */
  initProducer(
    conn: ConnectionHandle,
    producerName: string,
    resume?: { producerId: bigint; epoch: number },
  ): Promise<{ producerId: bigint; epoch: number }>;
  /** Writes the memo of `state` for a durable producer; undefined (nothing to wait for) for an ephemeral one. */
  persist(binding: ProducerBinding, topic: string, state: SequenceState): Promise<void> | undefined;
  crashPoint(point: Exclude<CrashPoint, 'after-prepare-commit'>): void;
}

/** What handlers, readers and the produce path ask of the transaction coordinator (transactions/coordinator.ts). */
export interface Transactions {
  /** min(first_offset) over unresolved transactions touching the partition, else the LEO. */
  lso(topic: string, partition: number, log: PartitionLog): bigint;
  /** The read_committed skip test for one partition, or undefined when nothing in it was aborted. */
  abortFilter(
    topic: string,
    partition: number,
  ): ((offset: bigint, producerId: bigint, epoch: number) => boolean) | undefined;
  begin(conn: ConnectionHandle): Promise<void>;
  /** The open transaction a produce on this connection joins, or undefined (the produce is not transactional). */
  activeFor(conn: ConnectionHandle, binding: ProducerBinding): Transaction | undefined;
  /** Persists the partitions not enrolled yet before their first record; undefined when all already were. */
  enrol(
    txn: Transaction,
    topic: string,
    partitions: ReadonlyArray<{ partition: number; log: PartitionLog }>,
  ): Promise<void> | undefined;
  addOffsets(
    conn: ConnectionHandle,
    group: string,
    offsets: ReadonlyArray<{ topic: string; partition: number; offset: bigint }>,
  ): void;
  end(conn: ConnectionHandle, decision: Decision): Promise<void>;
}

export interface BrokerCore {
  readonly config: BrokerConfig;
  readonly dataDir: string;
  readonly topics: TopicRegistry;
  readonly logger: Logger;
  readonly authenticator: Authenticator;
  /** The name and version IDENTIFY_ACK reports (package.json, read once at start). */
  readonly identity: { name: string; version: string };
  /** Wall-clock milliseconds; record timestamps come from here (tests may replace the clock). */
  now(): bigint;
  /**
   * One partition (1-based) of an internal `__*` topic on the commitlog backend (compact, 8 MiB segments, 16
   * partitions unless created otherwise), created on first use.
   */
  internalLog(topicName: string, partition: number): Promise<PartitionLog>;
  /** The consumer runtime, once the broker has started. */
  readonly consumer: ConsumerRuntime | undefined;
  /** Producer ids, epochs, sequence state and the `__producer_state` memos (replayed before the broker listens). */
  readonly producerState: ProducerStates;
  /** Transactions: BEGIN/END_TXN, enrolment, markers, the abort index and each partition's LSO (semantics.md §10). */
  readonly transactions: Transactions;
}

/**
 * Kept in `conn.session` under SESSION_ORDERED_REPLIES by the TCP connection: `after` lets a handler return while
 * its reply waits on `work` (a produce's fsync), with replies still leaving in request order. It returns a promise
 * only when too many replies are outstanding, for the handler to return so that dispatch waits.
 */
export const SESSION_ORDERED_REPLIES = 'ordered-replies';

export interface OrderedReplies {
  after<T>(work: Promise<T>, reply: (value: T) => void, op: number, correl: Buffer): Promise<void> | undefined;
  /**
   * Undefined when no reply is waiting on work; otherwise settles once every earlier reply is out (never rejects).
   * FETCH polls only then, so its records are never held in memory behind an fsync and its cursors commit only for
   * a reply that went straight to the socket.
   */
  settled(): Promise<void> | undefined;
}
