/** Protocol limits from semantics.md §12 and wire.md §1, one place each. */

export const PROTOCOL_VERSION = 1;

/** FrameLen counts op + correl + payload, never its own 4 bytes. */
export const FRAME_LENGTH_BYTES = 4;
export const CORREL_BYTES = 16;
export const FRAME_HEADER_BYTES = 1 + CORREL_BYTES; // 17: the minimum FrameLen
export const DEFAULT_MAX_FRAME_SIZE = 1_048_576;
/** What the reference client accepts from a server. */
export const CLIENT_MAX_FRAME_SIZE = 16 * 1_048_576;

export const Caps = {
  /** Any string without a more specific cap, keys and values included. */
  default: 65_536,
  topic: 249,
  group: 256,
  memberId: 256,
  username: 256,
  password: 1_024,
  producerName: 256,
  nackReason: 1_024,
  clientName: 128,
  clientVersion: 64,
  saslMessage: 4_096,
  saslMechanism: 64,
  configKey: 64,
  configValue: 256,
  headerName: 256,
  headerValue: 65_536,
} as const;

export const Limits = {
  configEntries: 64,
  joinTopics: 256,
  partitions: 1_024,
  batchRecords: 10_000,
  idempotentBatchRecords: 1_024,
  txnOffsetEntries: 1_024,
  groupList: 4_096,
  maxTopics: 1_024,
  listTopics: 1_024,
  headersPerRecord: 64,
  pendingSendBytes: 16 * 1_048_576,
  maxEpoch: 65_535,
} as const;
