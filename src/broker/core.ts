/**
 * What a request handler sees of the broker. Handlers (ours and the consumer side's) code against this interface,
 * never against the Broker class, so the TCP server, the topic registry and the consumer runtime stay separable.
 */
import type { PartitionLog } from '../storage/partition-log.js';
import type { Authenticator } from './auth.js';
import type { BrokerConfig } from './config.js';
import type { Logger } from './logger.js';
import type { ProducerStateRuntime } from './producer-state/runtime.js';
import type { TopicRegistry } from './topics.js';
import type { TransactionCoordinator } from './transactions/coordinator.js';

export { type Logger, silentLogger } from './logger.js';

/** The consumer side (FETCH, SUBSCRIBE, groups, offsets): created once per broker, started after topics load. */
export interface ConsumerRuntime {
  start(): Promise<void>;
  /** Stops reaper timers and flushes the offset store; called after every connection has closed. */
  stop(): Promise<void>;
  /** A user topic was deleted: drop its offsets, assignments and cursors. */
  onTopicDeleted(name: string): void | Promise<void>;
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
  readonly producerState: ProducerStateRuntime;
  /** Transactions: BEGIN/END_TXN, enrolment, markers, the abort index and each partition's LSO (semantics.md §10). */
  readonly transactions: TransactionCoordinator;
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
