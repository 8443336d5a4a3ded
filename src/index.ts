/**
 * crater's public library API. Every export is named here on purpose: what is not listed is internal and may change.
 * Each area keeps its own barrel of explicit named exports (protocol, client, broker, bench); this file re-exports
 * them and names the storage readers one by one.
 */

// Errors: one class per failure kind, each with a stable `code`.
export {
  BrokerError,
  BufferExhaustedError,
  ConnectionError,
  CorruptDataError,
  CraterError,
  type CraterErrorCode,
  DecodeError,
  type DeliveryRequest,
  DeliveryTimeoutError,
  FrameTooLargeError,
  ShutdownIncompleteError,
  StorageError,
  TimeoutError,
  UncertainDeliveryError,
  UsageError,
} from './errors.js';

// Protocol: MoonMQ protocol v1 framing, tables and every frame codec (pure: no sockets, no files).
export * from './protocol/index.js';

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
export { type StateDumpOptions, type StateDumpReport, dumpProducerState } from './storage/producer-state/dump.js';
export { SegmentedLog, type SegmentedLogOptions } from './storage/segmented-log.js';

// Client: connections, admin, produce (plain, idempotent, transactional), fetch, subscribe, groups.
export * from './client/index.js';

// Broker: the embeddable broker (`Broker.start`) and its configuration.
export {
  Broker,
  type BrokerEvent,
  type BrokerStartOptions,
  BrokerDefaults,
  type AcksMode,
  type AuthOptions,
  type BrokerConfig,
  type BrokerOptions,
  type InitialTopic,
  hashPassword,
  verifyPassword,
} from './broker/index.js';

// Bench: report-returning benchmarks behind `crater bench` and `npm run bench`.
export * from './bench/index.js';
