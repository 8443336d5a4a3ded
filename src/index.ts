/**
 * crater's public library API. Every export is named here on purpose: what is not listed is internal and may change.
 * Add a section per area (client, broker, storage readers, bench) as it lands.
 */

// Errors: one class per failure kind, each with a stable `code`.
export {
  BrokerError,
  ConnectionError,
  CorruptDataError,
  CraterError,
  type CraterErrorCode,
  DecodeError,
  FrameTooLargeError,
  StorageError,
  TimeoutError,
  UsageError,
} from './errors.js';

// Protocol: MoonMQ protocol v1 framing and primitives (pure: no sockets, no files).
export { Reader } from './protocol/reader.js';
export { Writer, beginFrame, endFrame } from './protocol/writer.js';
export { type Frame, FrameDecoder } from './protocol/frame-decoder.js';
export {
  type MessageCodec,
  ZERO_CORREL,
  decodePayload,
  defineMessage,
  emptyMessage,
  encodeFrame,
  encodePayload,
} from './protocol/message.js';
export {
  BatchFlag,
  Codec,
  type CodecId,
  type CodecName,
  FetchFlag,
  ForTimesFlag,
  Isolation,
  type IsolationLevel,
  ListOffsetsMode,
  Op,
  type OpCode,
  type OpName,
  OffsetsFlag,
  codecNames,
  formatOp,
  isKnownOp,
  isReplyOp,
  isRequestOp,
  opName,
} from './protocol/opcodes.js';
export {
  ErrorCode,
  type ErrorCodeName,
  type ErrorCodeValue,
  errorName,
  isKnownErrorCode,
} from './protocol/error-codes.js';
export {
  CLIENT_MAX_FRAME_SIZE,
  CORREL_BYTES,
  Caps,
  DEFAULT_MAX_FRAME_SIZE,
  FRAME_HEADER_BYTES,
  FRAME_LENGTH_BYTES,
  Limits,
  PROTOCOL_VERSION,
} from './protocol/limits.js';
export { type RecordHeader, headersSize, readHeaders, writeHeaders } from './protocol/headers.js';
export {
  CodecError,
  SNAPPY_MAX_UNCOMPRESSED,
  compressValue,
  decompressValue,
  isSupportedCodec,
} from './protocol/compression.js';
export { crc32 } from './protocol/crc32.js';
export { fnv1a32, partitionForKey } from './protocol/fnv1a.js';
export { ErrorFrame, type ErrorReply } from './protocol/messages/error.js';
export { type Hello, HelloRequest, WelcomeReply } from './protocol/messages/hello.js';

// Storage: the on-disk record (storage.md §8) shared by both backends, and the log contract they implement.
export {
  ControlMarker,
  type ReadResult,
  RecordAttr,
  type RecordProblem,
  type RecordToStore,
  type StoredRecord,
  decodeControlValue,
  encodeControlValue,
  encodeRecord,
  readRecord,
  recordSize,
  writeRecord,
} from './storage/record.js';
export type { AppendResult, LogRecord, PartitionLog, ReadLimits } from './storage/partition-log.js';
export {
  COMMIT_LOG_SEGMENT_BYTES,
  CommitLog,
  type CommitLogOptions,
  INTERNAL_SEGMENT_BYTES,
} from './storage/commit-log.js';
export {
  type CleanupPolicy,
  type CompactionStats,
  type ReplayEntry,
  compactSegments,
  replayCompacted,
} from './storage/compaction.js';

// Storage readers: the read-only segment inspector behind `crater segments inspect`.
export {
  type Finding,
  type FindingKind,
  type InspectLevel,
  type InspectOptions,
  type InspectReport,
  type InspectSummary,
  type PartitionReport,
  type RecordReport,
  type SegmentReport,
  findingKinds,
  inspectLevels,
  inspectPaths,
} from './storage/inspect/inspect.js';
