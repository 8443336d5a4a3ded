/**
 * FETCH (0x04)
 *   str topic (cap 249) · str group (cap 256) · u32 max_records
 *   [u8 isolation]          absent = read_uncommitted; any byte other than 1 is read_uncommitted
 *   [u8 flags]              FETCH_FLAG_BATCHED 0x01 · FETCH_FLAG_HEADERS 0x02 (crater, only with BATCHED)
 *
 * RECORD (0x83)             one record; with the fetch correl, or the zero correl when pushed after SUBSCRIBE
 *   str topic · u32 partition · u64 offset · u64 timestamp_ms · str key · str value
 *
 * RECORD_BATCH (0x8C)
 *   u32 count · count × (RECORD's fields · [header block, only when the FETCH set FETCH_FLAG_HEADERS])
 *
 * The bytes of a RECORD_BATCH do not say whether header blocks follow the entries: the reader must know what it
 * asked for, so there are two codecs (recordBatchCodec picks one). Hot path: keys and values decode as zero-copy
 * views, a topic repeated from the previous entry reuses its string, and the encoder sizes the writer once; the
 * header-less batch (what every FETCH without FETCH_FLAG_HEADERS gets) is read on raw indices, and only input it
 * rejects goes through the Reader again, so errors name the same field and offset either way.
 * Caps apply on decode; encoders write what they are given.
 */
import { arrayBufferView, sameRange } from '../byte-view.js';
import { type RecordHeader, readHeaders, writeHeaders } from '../headers.js';
import { Caps } from '../limits.js';
import { type MessageCodec, defineMessage } from '../message.js';
import { Op } from '../opcodes.js';
import { u32At, u64At } from '../raw-ints.js';
import { Reader } from '../reader.js';
import type { Writer } from '../writer.js';
import { headersBound, inEntry, strBound } from './field-path.js';

export interface Fetch {
  topic: string;
  group: string;
  maxRecords: number;
  /** Written when either it or `flags` is set (0 stands in when only flags are given). */
  isolation?: number | undefined;
  flags?: number | undefined;
}

export interface FetchedRecord {
  topic: string;
  partition: number;
  offset: bigint;
  timestamp: bigint;
  key: Buffer;
  value: Buffer;
  /** Only in a RECORD_BATCH fetched with FETCH_FLAG_HEADERS. */
  headers?: RecordHeader[] | undefined;
}

export interface RecordBatch {
  records: FetchedRecord[];
}

/** str topic · u32 · u64 · u64 · str key · str value, all empty. */
const MIN_RECORD_BYTES = 32;

export const FetchRequest = defineMessage<Fetch>({
  op: Op.FETCH,
  name: 'FETCH',
  encode(w, m) {
    w.str(m.topic).str(m.group).u32(m.maxRecords);
    if (m.isolation !== undefined || m.flags !== undefined) w.u8(m.isolation ?? 0);
    if (m.flags !== undefined) w.u8(m.flags);
  },
  decode(r) {
    return {
      topic: r.str('topic', Caps.topic),
      group: r.str('group', Caps.group),
      maxRecords: r.u32('max_records'),
      isolation: r.optionalU8('isolation'),
      flags: r.optionalU8('flags'),
    };
  },
});

export const RecordReply = defineMessage<FetchedRecord>({
  op: Op.RECORD,
  name: 'RECORD',
  encode(w, m) {
    w.reserve(strBound(m.topic) + 28 + m.key.length + m.value.length);
    w.str(m.topic).u32(m.partition).u64(m.offset).u64(m.timestamp).str(m.key).str(m.value);
  },
  decode(r) {
    return {
      topic: r.str('topic'),
      partition: r.u32('partition'),
      offset: r.u64('offset'),
      timestamp: r.u64('timestamp_ms'),
      key: r.strBytes('key'),
      value: r.strBytes('value'),
    };
  },
});

function sameBytes(a: Buffer, b: Buffer): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function encodeBatch(w: Writer, m: RecordBatch, withHeaders: boolean): void {
  const records = m.records;
  let size = 4;
  let lastTopic: string | undefined;
  let lastTopicBytes = 0;
  for (let i = 0; i < records.length; i++) {
    const rec = records[i]!;
    if (rec.topic !== lastTopic) {
      lastTopic = rec.topic;
      lastTopicBytes = Buffer.byteLength(rec.topic);
    }
    size += 32 + lastTopicBytes + rec.key.length + rec.value.length;
    if (withHeaders) size += headersBound(rec.headers);
  }
  w.reserve(size);
  w.u32(records.length);
  lastTopic = undefined;
  let topicBytes: Buffer = Buffer.alloc(0);
  for (let i = 0; i < records.length; i++) {
    const rec = records[i]!;
    if (rec.topic !== lastTopic) {
      lastTopic = rec.topic;
      topicBytes = Buffer.from(rec.topic, 'utf8');
    }
    w.str(topicBytes).u32(rec.partition).u64(rec.offset).u64(rec.timestamp).str(rec.key).str(rec.value);
    if (withHeaders) writeHeaders(w, rec.headers);
  }
}

function decodeBatch(r: Reader, withHeaders: boolean): RecordBatch {
  const at = r.offset;
  const rest = r.bytes(r.remaining, 'count');
  // The strict decoder, over the same bytes with the same offsets, is what names the problem in malformed input
  // (and decodes the header blocks that are not empty).
  return decodePlainBatch(rest, withHeaders) ?? strictDecodeBatch(new Reader(rest, 0, rest.length, -at), withHeaders);
}

function strictDecodeBatch(r: Reader, withHeaders: boolean): RecordBatch {
  const n = r.count('count', withHeaders ? MIN_RECORD_BYTES + 2 : MIN_RECORD_BYTES);
  const records = new Array<FetchedRecord>(n);
  let lastTopicBytes: Buffer | undefined;
  let lastTopic = '';
  let i = 0;
  try {
    for (; i < n; i++) {
      const topicBytes = r.strBytes('topic');
      if (lastTopicBytes === undefined || !sameBytes(topicBytes, lastTopicBytes)) {
        lastTopic = topicBytes.toString('utf8');
        lastTopicBytes = topicBytes;
      }
      const rec: FetchedRecord = {
        topic: lastTopic,
        partition: r.u32('partition'),
        offset: r.u64('offset'),
        timestamp: r.u64('timestamp_ms'),
        key: r.strBytes('key'),
        value: r.strBytes('value'),
      };
      if (withHeaders) rec.headers = readHeaders(r);
      records[i] = rec;
    }
  } catch (err) {
    throw inEntry(err, `records[${i}]`);
  }
  return { records };
}

/**
 * The hot path of a RECORD_BATCH whose records carry no headers: the same checks as the strict decoder (count fits,
 * every length within its cap and the bytes left) on raw indices, with no Reader calls and no topic view per entry.
 * With `withHeaders` every record's header block must be empty (count 0; each record then gets its own empty list,
 * as the strict decoder gives). Returns undefined at the first failed check or non-empty header block and leaves the
 * batch to the strict decoder. Key and value views are made over the payload's ArrayBuffer, read once (its getter is a
 * runtime call), and a timestamp equal to the previous record's reuses its bigint (a produce batch shares one).
 */
function decodePlainBatch(b: Buffer, withHeaders: boolean): RecordBatch | undefined {
  const end = b.length;
  if (end < 4) return undefined;
  const n = u32At(b, 0);
  if (n > Math.floor((end - 4) / (withHeaders ? MIN_RECORD_BYTES + 2 : MIN_RECORD_BYTES))) return undefined;
  const records = new Array<FetchedRecord>(n);
  const cap = Caps.default;
  let p = 4;
  let topicStart = -1;
  let topicLen = -1;
  let topic = '';
  const ab = b.buffer;
  const base = b.byteOffset;
  let tsHigh = -1;
  let tsLow = -1;
  let timestamp = 0n;
  for (let i = 0; i < n; i++) {
    if (end - p < 4) return undefined;
    const tLen = u32At(b, p);
    p += 4;
    if (tLen > cap || tLen > end - p) return undefined;
    if (tLen !== topicLen || !sameRange(b, p, topicStart, tLen)) {
      topic = b.toString('utf8', p, p + tLen);
      topicStart = p;
      topicLen = tLen;
    }
    p += tLen;
    if (end - p < 24) return undefined;
    const partition = u32At(b, p);
    const offset = u64At(b, p + 4);
    const high = u32At(b, p + 12);
    const low = u32At(b, p + 16);
    if (high !== tsHigh || low !== tsLow) {
      timestamp = u64At(b, p + 12);
      tsHigh = high;
      tsLow = low;
    }
    const kLen = u32At(b, p + 20);
    p += 24;
    if (kLen > cap || kLen > end - p) return undefined;
    const key = arrayBufferView(ab, base + p, kLen);
    p += kLen;
    if (end - p < 4) return undefined;
    const vLen = u32At(b, p);
    p += 4;
    if (vLen > cap || vLen > end - p) return undefined;
    const value = arrayBufferView(ab, base + p, vLen);
    p += vLen;
    if (!withHeaders) {
      records[i] = { topic, partition, offset, timestamp, key, value };
      continue;
    }
    if (end - p < 2 || b[p] !== 0 || b[p + 1] !== 0) return undefined;
    p += 2;
    records[i] = { topic, partition, offset, timestamp, key, value, headers: [] };
  }
  return { records };
}

/** RECORD_BATCH as MoonMQ sends it: no header blocks. */
export const RecordBatchReply = defineMessage<RecordBatch>({
  op: Op.RECORD_BATCH,
  name: 'RECORD_BATCH',
  encode: (w, m) => encodeBatch(w, m, false),
  decode: (r) => decodeBatch(r, false),
});

/** RECORD_BATCH answering a FETCH with FETCH_FLAG_HEADERS: every entry is followed by its header block. */
export const RecordBatchWithHeadersReply = defineMessage<RecordBatch>({
  op: Op.RECORD_BATCH,
  name: 'RECORD_BATCH',
  encode: (w, m) => encodeBatch(w, m, true),
  decode: (r) => decodeBatch(r, true),
});

export function recordBatchCodec(withHeaders: boolean): MessageCodec<RecordBatch> {
  return withHeaders ? RecordBatchWithHeadersReply : RecordBatchReply;
}
