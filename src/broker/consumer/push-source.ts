/**
 * What a push loop (push-loop.ts) asks of the consumer runtime that starts it: runtime.ts's ConsumerService
 * implements it. Declared apart so that the loop does not import the runtime back.
 */
import type { BrokerCore } from '../core.js';
import type { ConnectionHandle } from '../handler.js';
import type { ConsumerRuntimeOptions } from '../subsystem-options.js';
import type { PolledPartition, PollResult } from './fetch-poller.js';
import type { ReplyPool } from './reply-pool.js';
import type { ConsumerSession } from './session.js';

export interface PushSource {
  readonly broker: BrokerCore;
  readonly settings: Required<ConsumerRuntimeOptions>;
  /** Where a pass's frames buffer comes from and goes back to once the socket took it. */
  readonly replyPool: ReplyPool;
  /** One poll of the session's targets, at most `maxRecords`. */
  pollFor(conn: ConnectionHandle, s: ConsumerSession, maxRecords: number): PollResult;
  /** Moves the group's cursors past what was handed to the send layer. */
  advance(group: string, parts: readonly PolledPartition[]): void;
  /** Undoes `advance` for records that never reached the socket. */
  rewind(group: string, parts: readonly PolledPartition[]): void;
  /**
   * Commits the cursors of `parts` that moved past the committed offset (written by the offset store's next delivery
   * flush, whose failure is logged, never thrown); resolves at once.
   */
  commitDelivered(group: string, parts: readonly PolledPartition[]): Promise<void>;
}
