/**
 * Record headers (extensions.md §3): an ordered list of (name, value) pairs, names may repeat.
 *
 *   u16 n · n × (str name · str value)      n ≤ 64, name ≤ 256 bytes, value ≤ 65,536 bytes
 *
 * The same block follows a PRODUCE_BATCH entry (BATCH_FLAG_HEADERS), a RECORD_BATCH entry (FETCH_FLAG_HEADERS) and
 * sits between key and value in an on-disk record with attrs 0x10.
 */
import { DecodeError } from '../errors.js';
import { Caps, Limits } from './limits.js';
import type { Reader } from './reader.js';
import type { Writer } from './writer.js';

export interface RecordHeader {
  name: string;
  value: Buffer;
}

export function writeHeaders(w: Writer, headers: readonly RecordHeader[] | undefined): void {
  const list = headers ?? [];
  w.u16(list.length);
  for (const h of list) w.str(h.name).str(h.value);
}

export function readHeaders(r: Reader, field = 'headers'): RecordHeader[] {
  const start = r.offset;
  const n = r.u16(`${field}.count`);
  if (n > Limits.headersPerRecord) {
    throw new DecodeError(`${field}.count`, start, `${n} headers exceeds the limit of ${Limits.headersPerRecord}`);
  }
  const headers = new Array<RecordHeader>(n);
  for (let i = 0; i < n; i++) {
    const name = r.str(`${field}[${i}].name`, Caps.headerName);
    const value = r.strBytes(`${field}[${i}].value`, Caps.headerValue);
    headers[i] = { name, value };
  }
  return headers;
}

/** Encoded size of a header block, for sizing buffers up front. */
export function headersSize(headers: readonly RecordHeader[] | undefined): number {
  let size = 2;
  for (const h of headers ?? []) size += 8 + Buffer.byteLength(h.name) + h.value.length;
  return size;
}
