/** wire.md §2.1: the opcode table, in one place. Requests 0x01–0x7F, replies 0x80–0xFE, 0xFF reserved. */
import { namesOf } from './table.js';

export const Op = {
  HELLO: 0x01,
  AUTH: 0x02,
  PRODUCE: 0x03,
  FETCH: 0x04,
  SUBSCRIBE: 0x05,
  COMMIT: 0x06,
  CREATE_TOPIC: 0x07,
  LIST_TOPICS: 0x08,
  PING: 0x09, // retired: answered with UNKNOWN_OP
  GOODBYE: 0x0a,
  HEARTBEAT_REQ: 0x0b,
  HEARTBEAT_RESP: 0x0c,
  IDENTIFY_CLIENT: 0x0d,
  INIT_PRODUCER_ID: 0x0e,
  PRODUCE_IDEMPOTENT: 0x0f,
  JOIN_GROUP: 0x10,
  LEAVE_GROUP: 0x11,
  GROUP_HEARTBEAT: 0x12,
  BEGIN_TXN: 0x13,
  END_TXN: 0x14,
  TXN_OFFSET_COMMIT: 0x15,
  NACK: 0x16,
  PRODUCE_BATCH: 0x17,
  LIST_OFFSETS: 0x18,
  DELETE_TOPIC: 0x19,
  DESCRIBE_TOPIC: 0x1a,
  ALTER_TOPIC_CONFIG: 0x1b,
  LIST_GROUPS: 0x1c,
  DESCRIBE_GROUP: 0x1d,
  DELETE_GROUP: 0x1e,
  AUTH_SCRAM: 0x1f,
  AUTH_SCRAM_FINAL: 0x20,
  CREATE_PARTITIONS: 0x21,
  // crater share groups (docs/extensions.md §share groups): 0x60–0x68 and 0xE0–0xE4, a range MoonMQ does not use
  SHARE_JOIN: 0x60,
  SHARE_HEARTBEAT: 0x61,
  SHARE_LEAVE: 0x62,
  SHARE_FETCH: 0x63,
  SHARE_ACK: 0x64,
  SHARE_DESCRIBE: 0x65,
  SHARE_ALTER: 0x66,
  SHARE_RESET: 0x67,
  SHARE_LIST: 0x68,

  WELCOME: 0x80,
  AUTH_OK: 0x81,
  PRODUCE_ACK: 0x82,
  RECORD: 0x83,
  TOPIC_LIST: 0x84,
  PONG: 0x85, // retired
  OK: 0x86,
  IDENTIFY_ACK: 0x87,
  PRODUCER_ID: 0x88,
  GROUP_ASSIGNMENT: 0x89,
  NACK_ACK: 0x8a,
  PRODUCE_BATCH_ACK: 0x8b,
  RECORD_BATCH: 0x8c,
  OFFSETS: 0x8d,
  TOPIC_DESCRIPTION: 0x8e,
  GROUP_LIST: 0x8f,
  GROUP_DESCRIPTION: 0x90,
  AUTH_CHALLENGE: 0x91,
  SHARE_MEMBER: 0xe0,
  SHARE_RECORDS: 0xe1,
  SHARE_ACK_RESULT: 0xe2,
  SHARE_DESCRIPTION: 0xe3,
  SHARE_GROUP_LIST: 0xe4,
  ERROR: 0xfe,
} as const;

export type OpName = keyof typeof Op;
export type OpCode = (typeof Op)[OpName];

const namesByCode = namesOf(Op);

export function opName(op: number): string {
  return namesByCode.get(op) ?? `0x${op.toString(16).padStart(2, '0')}`;
}

export function isKnownOp(op: number): op is OpCode {
  return namesByCode.has(op);
}

export function isRequestOp(op: number): boolean {
  return op >= 0x01 && op <= 0x7f;
}

export function isReplyOp(op: number): boolean {
  return op >= 0x80 && op <= 0xfe;
}

/** `op 0xNN`, as MoonMQ formats opcodes in error messages. */
export function formatOp(op: number): string {
  return `op 0x${op.toString(16).padStart(2, '0')}`;
}

/** wire.md §2.3 */
export const Isolation = { READ_UNCOMMITTED: 0, READ_COMMITTED: 1 } as const;
export type IsolationLevel = (typeof Isolation)[keyof typeof Isolation];
/** The isolation levels as a client's options spell them (both backends use these names). */
export type IsolationName = 'read_uncommitted' | 'read_committed';
export const FetchFlag = { BATCHED: 0x01, HEADERS: 0x02 } as const;
/** WINDOW (crater, docs/extensions.md): with IDEMPOTENT, the broker deduplicates against its last 5 batches. */
export const BatchFlag = { IDEMPOTENT: 0x01, HEADERS: 0x02, PARTITION: 0x04, WINDOW: 0x08 } as const;
export const OffsetsFlag = { HWM_EXACT: 0x01, LSO_KNOWN: 0x02, LOCAL: 0x04 } as const;
export const ForTimesFlag = { FOUND: 0x01 } as const;
export const ListOffsetsMode = { BOUNDS: 0, TIMESTAMP: 1 } as const;
export const Codec = { NONE: 0, GZIP: 1, SNAPPY: 2 } as const;
export type CodecId = (typeof Codec)[keyof typeof Codec];
export const codecNames = ['none', 'gzip', 'snappy'] as const;
export type CodecName = (typeof codecNames)[number];

/** Share-group acknowledgement types (docs/extensions.md): what SHARE_ACK and SHARE_FETCH's ack block carry. */
export const ShareAckType = { ACCEPT: 1, RELEASE: 2, REJECT: 3, RENEW: 4 } as const;
export type ShareAckTypeValue = (typeof ShareAckType)[keyof typeof ShareAckType];
/** SHARE_RESET's target. */
export const ShareResetTo = { EARLIEST: 0, LATEST: 1, OFFSET: 2 } as const;
export type ShareResetToValue = (typeof ShareResetTo)[keyof typeof ShareResetTo];
