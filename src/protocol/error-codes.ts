/** wire.md §2.4: the broker's error codes, as data. */
import { namesOf } from './table.js';

export const ErrorCode = {
  NONE: 0,
  BAD_FRAME: 1,
  UNKNOWN_OP: 2,
  NOT_AUTHED: 3,
  AUTH_FAILED: 4,
  TOPIC_MISSING: 5,
  RATE_LIMITED: 6,
  INTERNAL: 7,
  BAD_PROTOCOL: 8,
  FRAME_TOO_LARGE: 9,
  NO_PRODUCER_ID: 10,
  OUT_OF_ORDER_SEQUENCE: 11,
  GROUP_MEMBER_UNKNOWN: 12,
  GROUP_CONFLICT: 13,
  BATCH_TOO_LARGE: 14,
  GROUP_MISSING: 15,
  GROUP_NOT_EMPTY: 16,
  INVALID_CONFIG: 17,
  TOPIC_FORBIDDEN: 18,
  NOT_AUTHORIZED: 19,
  NOT_LEADER: 20,
  INVALID_PARTITIONS: 21,
  PRODUCER_FENCED: 50,
  INVALID_TXN_STATE: 51,
  TRANSACTION_TIMED_OUT: 52,
  OFFSETS_OUT_OF_RANGE_FOR_TXN: 53,
  /** crater share groups: an ack for a record this member does not hold (never acquired, lock expired, done). */
  INVALID_RECORD_STATE: 60,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;
export type ErrorCodeValue = (typeof ErrorCode)[ErrorCodeName];

const namesByCode = namesOf(ErrorCode);

/** `ERR_TOPIC_MISSING` for 5; `ERR_UNKNOWN_<n>` for a code this table lacks. */
export function errorName(code: number): string {
  const name = namesByCode.get(code);
  return name ? `ERR_${name}` : `ERR_UNKNOWN_${code}`;
}

export function isKnownErrorCode(code: number): code is ErrorCodeValue {
  return namesByCode.has(code);
}

/**
 * What a client does after each code, as data (the way kafkajs marks errors `retriable` and @platformatic/kafka
 * derives its predicates): the client's retry, idempotent-sequence, transaction and group logic read only this
 * table, never a code by name.
 *
 *   retriable          resending the same request, with the same sequence, is safe and may succeed: the broker
 *                      refused it before it took effect.
 *   resendAfterEarlier with several idempotent batches of one session in flight (the idempotent window), the batch
 *                      was refused only because one before it has not landed yet: once the session's earlier
 *                      batches have settled, the same sequence is resent (moonmq/idempotent-window.ts). Outside the
 *                      window the code follows `producer`.
 *   tailRetriable      the records the broker reports as not written at all, the unsent tail of a partial append
 *                      (an ack list shorter than the batch, the rest truncated back), may be resent: every
 *                      retriable code, and a storage failure (ERR 7), which the broker undid (producer/retry-rule.ts).
 *   producer           what an idempotent producer's session must do next:
 *                      'keep'         nothing of the request took effect; the same sequence goes to the next record;
 *                      'new-session'  the broker may hold state for this sequence (a write whose durability failed, a
 *                                     sequence it no longer agrees on), so no other record may ever use it: the
 *                                     next request starts a new session (INIT_PRODUCER_ID, a new epoch) whose
 *                                     sequences start at 0;
 *                      'fatal'        a newer session of the same producer fenced this one: stop (a new INIT would
 *                                     fence it).
 *   rejoin             a consumer group member's membership lapsed (evicted after its session timeout, or the
 *                      group is gone): it must JOIN_GROUP again before it fetches or commits. The joined consumer
 *                      (moonmq/consumer.ts) rejoins under the same member id after a heartbeat, COMMIT or NACK
 *                      answered so; a share consumer does not (docs/share-groups.md: the caller opens a new one).
 */
export interface ErrorRule {
  readonly retriable: boolean;
  readonly resendAfterEarlier: boolean;
  readonly tailRetriable: boolean;
  readonly producer: 'keep' | 'new-session' | 'fatal';
  readonly rejoin: boolean;
}

const none = { retriable: false, resendAfterEarlier: false, tailRetriable: false, rejoin: false } as const;
const keep: ErrorRule = { ...none, producer: 'keep' };
const retry: ErrorRule = { ...none, retriable: true, tailRetriable: true, producer: 'keep' };
const newSession: ErrorRule = { ...none, producer: 'new-session' };
const rejoin: ErrorRule = { ...none, producer: 'keep', rejoin: true };

export const errorRules = {
  NONE: keep,
  BAD_FRAME: keep,
  UNKNOWN_OP: keep,
  NOT_AUTHED: keep,
  AUTH_FAILED: keep,
  TOPIC_MISSING: keep,
  RATE_LIMITED: retry,
  // A storage failure (write, fsync, memo), or a partial batch: the broker may have appended and memoized.
  INTERNAL: { ...newSession, tailRetriable: true },
  // A pid other than the connection's: the session the client believes in is not the broker's.
  BAD_PROTOCOL: newSession,
  FRAME_TOO_LARGE: keep,
  NO_PRODUCER_ID: newSession,
  // Also the refusal of a windowed batch whose predecessor has not landed yet.
  OUT_OF_ORDER_SEQUENCE: { ...newSession, resendAfterEarlier: true },
  GROUP_MEMBER_UNKNOWN: rejoin,
  GROUP_CONFLICT: keep,
  BATCH_TOO_LARGE: keep,
  GROUP_MISSING: keep,
  GROUP_NOT_EMPTY: keep,
  INVALID_CONFIG: keep,
  TOPIC_FORBIDDEN: keep,
  NOT_AUTHORIZED: keep,
  NOT_LEADER: retry,
  INVALID_PARTITIONS: keep,
  PRODUCER_FENCED: { ...none, producer: 'fatal' },
  INVALID_TXN_STATE: keep,
  TRANSACTION_TIMED_OUT: keep,
  OFFSETS_OUT_OF_RANGE_FOR_TXN: keep,
  // A share-group ack for a record this member does not hold (share groups only; never an ERROR frame).
  INVALID_RECORD_STATE: keep,
} as const satisfies Record<ErrorCodeName, ErrorRule>;

/** A code this table lacks (a newer broker's): not retried, and no sequence is trusted after it. */
const UNKNOWN_RULE: ErrorRule = newSession;

export function errorRule(code: number): ErrorRule {
  const name = namesByCode.get(code);
  return name ? errorRules[name] : UNKNOWN_RULE;
}

export function isRetriable(code: number): boolean {
  return errorRule(code).retriable;
}

export function endsProducerSession(code: number): boolean {
  return errorRule(code).producer !== 'keep';
}

export function needsRejoin(code: number): boolean {
  return errorRule(code).rejoin;
}
