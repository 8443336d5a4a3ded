/**
 * What one connection holds on the consumer side (wire.md §2.5): the mode its first FETCH or SUBSCRIBE fixed, the
 * group and isolation level that came with it, the topics subscribed so far, and its group membership.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { Isolation } from '../../protocol/opcodes.js';
import type { ConnectionHandle } from '../handler.js';
import { HandlerError } from '../handler.js';

export type ConsumeMode = 'pull' | 'push';

export interface Membership {
  groupId: string;
  memberId: string;
}

export interface ConsumerSession {
  mode: ConsumeMode | undefined;
  group: string | undefined;
  readCommitted: boolean;
  /** Subscribed topics in subscription order. */
  readonly topics: string[];
  membership: Membership | undefined;
  /** The push loop serving SUBSCRIBE, once started. */
  push: { stop(): void } | undefined;
  /** Rotates the partition a FETCH starts with, so a small max_records cannot starve the later partitions. */
  rotation: number;
}

const SESSION_KEY = 'consumer';

export function sessionOf(conn: ConnectionHandle): ConsumerSession {
  let s = conn.session.get(SESSION_KEY) as ConsumerSession | undefined;
  if (!s) {
    s = {
      mode: undefined,
      group: undefined,
      readCommitted: false,
      topics: [],
      membership: undefined,
      push: undefined,
      rotation: 0,
    };
    conn.session.set(SESSION_KEY, s);
  }
  return s;
}

export function peekSession(conn: ConnectionHandle): ConsumerSession | undefined {
  return conn.session.get(SESSION_KEY) as ConsumerSession | undefined;
}

/**
 * Fixes (or checks) mode, group and isolation for a FETCH or SUBSCRIBE; ERR 8 on any mismatch. Any isolation byte
 * other than 1 means read_uncommitted.
 */
export function bindConsumer(
  s: ConsumerSession,
  mode: ConsumeMode,
  group: string,
  isolation: number | undefined,
): void {
  const readCommitted = isolation === Isolation.READ_COMMITTED;
  if (s.mode !== undefined && s.mode !== mode) {
    const used = s.mode === 'pull' ? 'FETCH' : 'SUBSCRIBE';
    throw new HandlerError(ErrorCode.BAD_PROTOCOL, `connection already in ${s.mode} mode (used ${used})`);
  }
  if (s.group !== undefined && s.group !== group) {
    throw new HandlerError(ErrorCode.BAD_PROTOCOL, `group_id mismatch (already in group ${s.group})`);
  }
  if (s.mode !== undefined && s.readCommitted !== readCommitted) {
    const current = s.readCommitted ? 'read_committed' : 'read_uncommitted';
    throw new HandlerError(ErrorCode.BAD_PROTOCOL, `isolation mismatch (connection is ${current})`);
  }
}

/** Records what `bindConsumer` accepted. */
export function fixConsumer(s: ConsumerSession, mode: ConsumeMode, group: string, isolation: number | undefined): void {
  s.mode = mode;
  s.group = group;
  s.readCommitted = isolation === Isolation.READ_COMMITTED;
}

export function subscribe(s: ConsumerSession, topic: string): void {
  if (!s.topics.includes(topic)) s.topics.push(topic);
}

/** COMMIT and NACK need an earlier FETCH or SUBSCRIBE: returns the group, else ERR 8. */
export function requireConsumer(s: ConsumerSession | undefined, op: string): string {
  if (!s?.mode || s.group === undefined) {
    throw new HandlerError(ErrorCode.BAD_PROTOCOL, `${op} requires an earlier FETCH or SUBSCRIBE on this connection`);
  }
  return s.group;
}
