/**
 * The records of one FETCH as `consume` handles them: a FetchTable (MoonMQ, read from the reply's frame) or an array
 * of records (Kafka, a legacy reply). These read either by index, so the loops never build an object per record.
 */
import { FetchTable } from '../client/fetch-table.js';
import type { FetchedRecord } from '../client/index.js';

export type FetchedRows = FetchTable | readonly FetchedRecord[];

export function topicAt(rows: FetchedRows, i: number): string {
  return rows instanceof FetchTable ? rows.topic(i) : rows[i]!.topic;
}

export function partitionAt(rows: FetchedRows, i: number): number {
  return rows instanceof FetchTable ? rows.partition(i) : rows[i]!.partition;
}

export function offsetAt(rows: FetchedRows, i: number): bigint {
  return rows instanceof FetchTable ? rows.offset(i) : rows[i]!.offset;
}

export function recordAt(rows: FetchedRows, i: number): FetchedRecord {
  return rows instanceof FetchTable ? rows.record(i) : rows[i]!;
}

/** Bytes of record i's key, value (twice: a stored record may hold it more compactly than this) and headers. */
export function sizeAt(rows: FetchedRows, i: number): number {
  if (rows instanceof FetchTable) return rows.keyLength(i) + 2 * rows.valueLength(i) + rows.headerBytes(i);
  const r = rows[i]!;
  let bytes = r.key.length + 2 * r.value.length;
  for (const h of r.headers ?? []) bytes += 16 + Buffer.byteLength(h.name) + h.value.length;
  return bytes;
}

export function pickRows(rows: FetchedRows, indices: readonly number[]): FetchedRows {
  return rows instanceof FetchTable ? rows.pick(indices) : indices.map((i) => rows[i]!);
}

export function sliceRows(rows: FetchedRows, from: number, to: number = rows.length): FetchedRows {
  return rows.slice(from, to);
}

export const NO_ROWS: FetchedRows = [];
