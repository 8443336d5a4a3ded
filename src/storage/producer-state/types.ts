/**
 * The report of `crater state dump`: every `__producer_state` record decoded (identity, memo v1/v2/v3 with each
 * batch ack, allocator watermark, tombstone), typed findings, and a summary. The library never prints.
 */
import type { MemoAck, SequenceMemo } from '../producer-state-codec.js';

export type StateEntryKind = 'identity' | 'memo' | 'allocator' | 'undecodable';

export interface StateEntry {
  kind: StateEntryKind;
  /** Where the record is: segment file, partition, commit-log offset and byte position. */
  file: string;
  partition: number | undefined;
  offset: bigint;
  position: number;
  timestamp: bigint;
  /** The raw key, hex. */
  key: string;
  tombstone: boolean;
  valueBytes: number;
  producerName?: string | undefined;
  producerId?: bigint | undefined;
  topic?: string | undefined;
  epoch?: number | undefined;
  memo?: MemoView | undefined;
  nextPid?: bigint | undefined;
  /** Why the key or value could not be decoded (kind 'undecodable', or a value that fits no layout). */
  problem?: string | undefined;
}

export interface MemoView {
  version: SequenceMemo['version'];
  lastSeq: number;
  lastOffset: bigint;
  lastPartition: number;
  epoch: number | undefined;
  baseSeq?: number | undefined;
  acks?: MemoAck[] | undefined;
  /** A "no ack" memo (partition 0, no v3 tail): the request after last_seq did not land; there is no ack to check. */
  noAck?: true | undefined;
}

export const stateFindingKinds = [
  /** A record of the log fails its CRC or layout check. */
  'corrupt-record',
  /** The log ends inside a record (torn write) or with bytes too few for a length prefix. */
  'truncated-log',
  /** A key whose tag is not 0x01, 0x02 or 0x03 (or an empty key). */
  'unknown-tag',
  /** A key under a known tag that does not have that tag's layout. */
  'bad-key',
  /** A value whose length fits none of its kind's layouts. */
  'wrong-length',
  /** Bytes after a v2 memo that are not a whole v3 tail (count past the bytes, count outside 1..1,024). */
  'bad-v3-tail',
  /** Bytes after a v3 memo that are not a whole crater window tail (wrong magic, counts out of range, torn). */
  'bad-window-tail',
  /** A v3 memo whose last_seq or last ack disagrees with its batch. */
  'memo-inconsistent',
  /** A memo written in an epoch later than its producer's current identity. */
  'epoch-ahead',
  /** An ack that points at no record of the topic's partition (`--against`). */
  'dangling-ack',
  /** A path that is not a `__producer_state` log, or does not exist. */
  'not-producer-state',
] as const;
export type StateFindingKind = (typeof stateFindingKinds)[number];

export interface StateFinding {
  kind: StateFindingKind;
  file: string;
  offset?: bigint | undefined;
  position: number;
  message: string;
}

export interface StateDumpOptions {
  /** Every record in log order instead of the compacted last-wins view. */
  history?: boolean;
  /** A producer name, or a pid in decimal. */
  producer?: string | undefined;
  topic?: string | undefined;
  /** A data dir whose topics the memos' acks are checked against. */
  against?: string | undefined;
}

export interface StateDumpSummary {
  records: number;
  shown: number;
  identities: number;
  memos: number;
  tombstones: number;
  memoVersions: Record<string, number>;
  nextPid: bigint | undefined;
  acksChecked: number;
  findings: number;
  findingsByKind: Record<string, number>;
}

export interface StateDumpReport {
  paths: string[];
  view: 'compacted' | 'history';
  entries: StateEntry[];
  findings: StateFinding[];
  summary: StateDumpSummary;
}
