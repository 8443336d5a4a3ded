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
