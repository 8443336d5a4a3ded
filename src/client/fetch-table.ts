/**
 * A FETCH reply's records without a JavaScript object per record: the RECORD_BATCH payload as received plus one row
 * of positions per record (where its partition/offset/timestamp, key and value sit in the payload). A consumer that
 * only copies the bytes on (`crater consume --json`) reads straight from the frame; `record(i)` builds the usual
 * FetchedRecord (decoded as the protocol's RECORD_BATCH decoder does) for whoever needs one.
 *
 * Checks are those of the protocol's decoder (the count fits, every length within its cap and the bytes left, header
 * blocks well formed): decodeFetchTable returns undefined on anything it rejects, and the caller decodes the frame
 * the ordinary way, which names the problem.
 */
import { Caps, Limits } from '../protocol/limits.js';
import type { FetchedRecord } from '../protocol/messages/fetch.js';
import { readHeaders, type RecordHeader } from '../protocol/headers.js';
import { u32At, u64At } from '../protocol/raw-ints.js';
import { Reader } from '../protocol/reader.js';
import { byteView, sameRange } from '../protocol/byte-view.js';

/** Row fields, ROW ints per record. */
const TOPIC = 0;
const ENTRY = 1;
const KEY = 2;
const KEY_LEN = 3;
const VALUE = 4;
const VALUE_LEN = 5;
const END = 6;
const ROW = 7;

/** str topic · u32 · u64 · u64 · str key · str value, all empty. */
const MIN_RECORD_BYTES = 32;

export class FetchTable {
  /**
   * @param frame the RECORD_BATCH payload (u32 count first)
   * @param rows ROW ints per record: topic index, partition field's position, key start and length, value start and
   *   length, end of the entry (after its header block)
   * @param withHeaders whether every entry carries a header block (the FETCH asked for them)
   */
  constructor(
    readonly frame: Buffer,
    readonly rows: Int32Array,
    readonly topics: readonly string[],
    readonly withHeaders: boolean,
  ) {}

  get length(): number {
    return this.rows.length / ROW;
  }

  topicIndex(i: number): number {
    return this.rows[i * ROW + TOPIC]!;
  }

  topic(i: number): string {
    return this.topics[this.rows[i * ROW + TOPIC]!]!;
  }

  partition(i: number): number {
    return u32At(this.frame, this.rows[i * ROW + ENTRY]!);
  }

  offset(i: number): bigint {
    return u64At(this.frame, this.rows[i * ROW + ENTRY]! + 4);
  }

  timestamp(i: number): bigint {
    return u64At(this.frame, this.rows[i * ROW + ENTRY]! + 12);
  }

  /** Where the offset (`field` 4) or timestamp (12) of record i sits in the frame: a u64, big-endian. */
  u64Position(i: number, field: 4 | 12): number {
    return this.rows[i * ROW + ENTRY]! + field;
  }

  keyStart(i: number): number {
    return this.rows[i * ROW + KEY]!;
  }

  keyLength(i: number): number {
    return this.rows[i * ROW + KEY_LEN]!;
  }

  valueStart(i: number): number {
    return this.rows[i * ROW + VALUE]!;
  }

  valueLength(i: number): number {
    return this.rows[i * ROW + VALUE_LEN]!;
  }

  /** Bytes of record i's header block (0 when the FETCH asked for none). */
  headerBytes(i: number): number {
    const r = i * ROW;
    return this.rows[r + END]! - this.rows[r + VALUE]! - this.rows[r + VALUE_LEN]!;
  }

  /** Record i's headers ([] for none); undefined when the FETCH asked for none. */
  headers(i: number): RecordHeader[] | undefined {
    if (!this.withHeaders) return undefined;
    const at = this.rows[i * ROW + VALUE]! + this.rows[i * ROW + VALUE_LEN]!;
    if (this.frame[at] === 0 && this.frame[at + 1] === 0) return [];
    return readHeaders(new Reader(this.frame, at, this.rows[i * ROW + END]));
  }

  /** Record i as the protocol decoder gives it (key and value are views into the frame). */
  record(i: number): FetchedRecord {
    const r = i * ROW;
    const key = this.rows[r + KEY]!;
    const value = this.rows[r + VALUE]!;
    const out: FetchedRecord = {
      topic: this.topic(i),
      partition: this.partition(i),
      offset: this.offset(i),
      timestamp: this.timestamp(i),
      key: byteView(this.frame, key, key + this.rows[r + KEY_LEN]!),
      value: byteView(this.frame, value, value + this.rows[r + VALUE_LEN]!),
    };
    if (this.withHeaders) out.headers = this.headers(i);
    return out;
  }

  records(): FetchedRecord[] {
    return Array.from({ length: this.length }, (_, i) => this.record(i));
  }

  /** The records at `indices`, in that order, over the same frame. */
  pick(indices: readonly number[]): FetchTable {
    const rows = new Int32Array(indices.length * ROW);
    indices.forEach((from, to) => rows.set(this.rows.subarray(from * ROW, from * ROW + ROW), to * ROW));
    return new FetchTable(this.frame, rows, this.topics, this.withHeaders);
  }

  /** Records [from, to) over the same frame. */
  slice(from: number, to: number = this.length): FetchTable {
    return new FetchTable(this.frame, this.rows.subarray(from * ROW, to * ROW), this.topics, this.withHeaders);
  }
}

/**
 * Record i of a FetchTable as a FetchedRecord whose fields are read from the frame when first asked for (and kept):
 * a record that is only copied on (`consume --exec` renders the row itself) costs one small object instead of a
 * record, two Buffer views, two bigints and a header list, and none of them survive to be copied by the scavenger.
 * Only the offset is kept once read; key, value and headers are built at each read. The fields are accessors:
 * `{ ...record }` copies none of them (use `table.record(row)` for a plain object).
 */
export class TableRecord implements FetchedRecord {
  #offset: bigint | undefined;

  constructor(
    readonly table: FetchTable,
    readonly row: number,
  ) {}

  get topic(): string {
    return this.table.topic(this.row);
  }

  get partition(): number {
    return this.table.partition(this.row);
  }

  /** Read once and kept: the batch consumer's watermark holds it (and the record before this one's `next`). */
  get offset(): bigint {
    return (this.#offset ??= this.table.offset(this.row));
  }

  get timestamp(): bigint {
    return this.table.timestamp(this.row);
  }

  /** A view of the key's bytes in the frame (a new view each time: equal bytes, not the same object). */
  get key(): Buffer {
    const start = this.table.keyStart(this.row);
    return byteView(this.table.frame, start, start + this.table.keyLength(this.row));
  }

  /** A view of the value's bytes in the frame (a new view each time). */
  get value(): Buffer {
    const start = this.table.valueStart(this.row);
    return byteView(this.table.frame, start, start + this.table.valueLength(this.row));
  }

  get headers(): RecordHeader[] | undefined {
    return this.table.headers(this.row);
  }
}

/** The table's records as TableRecords. */
export function tableRecords(t: FetchTable): TableRecord[] {
  const out = new Array<TableRecord>(t.length);
  for (let i = 0; i < out.length; i++) out[i] = new TableRecord(t, i);
  return out;
}

/** The end of the header block at `p`, or -1 when it is malformed (left to the strict decoder to name). */
function headerBlockEnd(b: Buffer, p: number, end: number): number {
  if (end - p < 2) return -1;
  const n = (b[p]! << 8) | b[p + 1]!;
  p += 2;
  if (n > Limits.headersPerRecord) return -1;
  for (let h = 0; h < n; h++) {
    if (end - p < 4) return -1;
    const nameLen = u32At(b, p);
    p += 4;
    if (nameLen > Caps.headerName || nameLen > end - p) return -1;
    p += nameLen;
    if (end - p < 4) return -1;
    const valueLen = u32At(b, p);
    p += 4;
    if (valueLen > Caps.headerValue || valueLen > end - p) return -1;
    p += valueLen;
  }
  return p;
}

/** The topic index of the name at `b[p, p+len)`: the last one seen, else a known one, else a new one. */
function topicAt(b: Buffer, p: number, len: number, topics: string[], starts: number[], lens: number[]): number {
  for (let t = topics.length - 1; t >= 0; t--) {
    if (lens[t] !== len) continue;
    const s = starts[t]!;
    let same = true;
    for (let k = 0; k < len && same; k++) same = b[s + k] === b[p + k];
    if (same) return t;
  }
  topics.push(b.toString('utf8', p, p + len));
  starts.push(p);
  lens.push(len);
  return topics.length - 1;
}

/** One RECORD_BATCH payload as a FetchTable; undefined when any check fails. */
export function decodeFetchTable(b: Buffer, withHeaders: boolean): FetchTable | undefined {
  const end = b.length;
  if (end < 4) return undefined;
  const n = u32At(b, 0);
  if (n > Math.floor((end - 4) / (withHeaders ? MIN_RECORD_BYTES + 2 : MIN_RECORD_BYTES))) return undefined;
  const rows = new Int32Array(n * ROW);
  const topics: string[] = [];
  const starts: number[] = [];
  const lens: number[] = [];
  const cap = Caps.default;
  let topic = -1;
  let lastStart = -1;
  let lastLen = -1;
  let p = 4;
  for (let i = 0, r = 0; i < n; i++, r += ROW) {
    if (end - p < 4) return undefined;
    const tLen = u32At(b, p);
    p += 4;
    if (tLen > cap || tLen > end - p) return undefined;
    if (tLen !== lastLen || !sameRange(b, p, lastStart, tLen)) topic = topicAt(b, p, tLen, topics, starts, lens);
    lastStart = p;
    lastLen = tLen;
    p += tLen;
    if (end - p < 28) return undefined;
    rows[r + TOPIC] = topic;
    rows[r + ENTRY] = p;
    const kLen = u32At(b, p + 20);
    p += 24;
    if (kLen > cap || kLen > end - p - 4) return undefined;
    rows[r + KEY] = p;
    rows[r + KEY_LEN] = kLen;
    p += kLen;
    const vLen = u32At(b, p);
    p += 4;
    if (vLen > cap || vLen > end - p) return undefined;
    rows[r + VALUE] = p;
    rows[r + VALUE_LEN] = vLen;
    p += vLen;
    if (withHeaders) {
      p = b[p] === 0 && b[p + 1] === 0 && end - p >= 2 ? p + 2 : headerBlockEnd(b, p, end);
      if (p < 0) return undefined;
    }
    rows[r + END] = p;
  }
  if (p !== end) return undefined;
  return new FetchTable(b, rows, topics, withHeaders);
}
