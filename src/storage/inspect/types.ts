/**
 * The report objects of the read-only segment inspector. The library never prints: `crater segments inspect`
 * renders these, and tests assert on them.
 */
import type { RecordHeader } from '../../protocol/headers.js';

export type InspectLevel = 'segment' | 'record' | 'payload';
export const inspectLevels = ['segment', 'record', 'payload'] as const satisfies readonly InspectLevel[];

export type StorageBackend = 'segmented' | 'commitlog';

export const findingKinds = [
  /** A record's header or payload CRC does not match its bytes. */
  'crc-mismatch',
  /** A length prefix no segment can hold: below the 21-byte minimum, or past the 4 GiB segment limit. */
  'impossible-length',
  /** A record whose length prefix runs past the end of the file (a torn write). */
  'torn-record',
  /** Fewer than 8 bytes at the end of a segment: not even a length prefix. */
  'trailing-bytes',
  /** A framed record whose layout is wrong: key_len past the payload, a bad header block, a header too short. */
  'bad-record',
  /** A time-index entry that does not point at a record start, or whose timestamp is not that record's. */
  'timeindex-misaligned',
  /** A time-index entry whose timestamp or position is below the previous entry's. */
  'timeindex-backwards',
  /** A .timeindex whose length is not a multiple of 12. */
  'timeindex-truncated',
  /** A segment whose name (base) does not continue where the previous segment ends. */
  'segment-discontinuity',
  /** A commit-log .index that disagrees with its .log (length, relative offset or position). */
  'index-mismatch',
  /** A closed segment with no bytes. The active (last) segment may be empty. */
  'empty-segment',
  /** A path that is not a segment file, or a directory with nothing to inspect. */
  'not-a-segment',
  'missing-path',
] as const;
export type FindingKind = (typeof findingKinds)[number];

export interface Finding {
  kind: FindingKind;
  file: string;
  /** Byte position in `file` the finding is about (0 for whole-file findings). */
  position: number;
  message: string;
}

export interface ControlMarkerReport {
  marker: 'COMMIT' | 'ABORT' | `UNKNOWN(${number})`;
  producerId: bigint;
  epoch: number;
}

export interface PayloadReport {
  key: Buffer;
  /** The value decompressed (as stored when the codec is none); absent when decompression failed. */
  value: Buffer | undefined;
  headers: RecordHeader[];
  decompressError?: string;
}

export interface RecordReport {
  /** Byte position (segmented) or message count (commitlog): the offset a consumer would use. */
  offset: bigint;
  /** Byte position of the length prefix within the segment file. */
  position: number;
  /** Bytes on disk, length prefix included. */
  size: number;
  timestamp: bigint;
  /** The timestamp as ISO 8601, or null when it is outside the range a Date can hold. */
  timestampIso: string | null;
  attrs: number;
  codec: string;
  control: boolean;
  transactional: boolean;
  hasHeaders: boolean;
  producerId?: bigint;
  epoch?: number;
  keySize: number;
  /** Bytes of the value as stored (compressed when the codec is not none). */
  valueSize: number;
  headerCount: number;
  crcValid: boolean;
  controlMarker?: ControlMarkerReport;
  /** Only at the payload level. */
  payload?: PayloadReport;
}

export interface IndexFileReport {
  file: string;
  bytes: number;
  entries: number;
}

export interface SegmentReport {
  file: string;
  backend: StorageBackend;
  base: bigint;
  /** The .log's size on disk. */
  bytes: number;
  /** Bytes up to the first problem that ends the scan (a torn or impossible record); equals `bytes` when none. */
  validBytes: number;
  recordCount: number;
  firstOffset?: bigint;
  lastOffset?: bigint;
  codecs: Record<string, number>;
  transactional: number;
  control: number;
  timeIndex?: IndexFileReport;
  index?: IndexFileReport;
  findingCount: number;
  /** Per-record reports at the record and payload levels, unless they were streamed to `onRecord`. */
  records?: RecordReport[];
}

export interface PartitionReport {
  dir: string;
  topic?: string;
  partition?: number;
  backend: StorageBackend;
  segments: SegmentReport[];
}

export interface InspectSummary {
  partitions: number;
  segments: number;
  records: number;
  bytes: number;
  firstOffset?: bigint;
  lastOffset?: bigint;
  codecs: Record<string, number>;
  transactional: number;
  control: number;
  findings: number;
  findingsByKind: Partial<Record<FindingKind, number>>;
}

export interface InspectReport {
  level: InspectLevel;
  paths: string[];
  partitions: PartitionReport[];
  /** Every finding, in the order found, each naming its file and byte position. */
  findings: Finding[];
  summary: InspectSummary;
}

export interface InspectOptions {
  level?: InspectLevel;
  /**
   * Receives each record as it is read, instead of the report keeping it (`--jsonl` streams a huge segment this way).
   */
  onRecord?: (record: RecordReport, segment: { file: string; topic?: string; partition?: number }) => void;
  /** Read size for the .log scan; records larger than this are read on their own. */
  chunkBytes?: number;
}
