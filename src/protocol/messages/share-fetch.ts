/**
 * SHARE_FETCH (0x63, crater)
 *   str group (cap 256) · str member_id (cap 256) · u32 max_records (1..10,000) · u32 max_wait_ms (≤ 30,000)
 *   ack block (share-acks.ts): acknowledgements of earlier records, applied before anything is acquired
 *
 * SHARE_RECORDS (0xE1, crater)
 *   u64 broker_time_ms        the broker clock when the reply was built (lock deadlines are on that clock)
 *   u32 count · count × (str topic · u32 partition · u64 offset · u64 timestamp_ms · u16 delivery_count
 *                        · u64 lock_deadline_ms · str key · str value)
 *   ack results (share-acks.ts) for the ack block of the request
 *
 * Every record in the reply is Acquired by the member until lock_deadline_ms; delivery_count is 1 on the first
 * delivery. Values are plaintext; records are delivered without headers. With nothing to acquire the broker waits
 * up to max_wait_ms for records, then answers with count 0.
 */
import { DecodeError } from '../../errors.js';
import { Caps, Limits } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';
import {
  type ShareAckResult,
  type SharePartitionAcks,
  readAckBlock,
  readAckResults,
  writeAckBlock,
  writeAckResults,
} from './share-acks.js';
import { arrayBufferView, sameRange } from '../byte-view.js';
import { u32At, u64At } from '../raw-ints.js';
import { Reader } from '../reader.js';
import { inEntry, strBound } from './field-path.js';

export const SHARE_FETCH_MAX_WAIT_MS = 30_000;

export interface ShareFetch {
  group: string;
  memberId: string;
  maxRecords: number;
  maxWaitMs: number;
  acks: SharePartitionAcks[];
}

export interface ShareRecord {
  topic: string;
  partition: number;
  offset: bigint;
  timestamp: bigint;
  deliveryCount: number;
  lockDeadlineMs: bigint;
  key: Buffer;
  value: Buffer;
}

export interface ShareRecords {
  brokerTimeMs: bigint;
  records: ShareRecord[];
  results: ShareAckResult[];
}

/** str · u32 · u64 · u64 · u16 · u64 · str · str, all empty. */
const MIN_SHARE_RECORD_BYTES = 42;

export const ShareFetchRequest = defineMessage<ShareFetch>({
  op: Op.SHARE_FETCH,
  name: 'SHARE_FETCH',
  encode(w, m) {
    w.str(m.group).str(m.memberId).u32(m.maxRecords).u32(m.maxWaitMs);
    writeAckBlock(w, m.acks);
  },
  decode(r) {
    const group = r.str('group', Caps.group);
    const memberId = r.str('member_id', Caps.memberId);
    let at = r.offset;
    const maxRecords = r.u32('max_records');
    if (maxRecords < 1 || maxRecords > Limits.batchRecords) {
      throw new DecodeError('max_records', at, `max_records must be 1..${Limits.batchRecords}, got ${maxRecords}`);
    }
    at = r.offset;
    const maxWaitMs = r.u32('max_wait_ms');
    if (maxWaitMs > SHARE_FETCH_MAX_WAIT_MS) {
      throw new DecodeError(
        'max_wait_ms',
        at,
        `max_wait_ms must be at most ${SHARE_FETCH_MAX_WAIT_MS}, got ${maxWaitMs}`,
      );
    }
    return { group, memberId, maxRecords, maxWaitMs, acks: readAckBlock(r) };
  },
});

export const ShareRecordsReply = defineMessage<ShareRecords>({
  op: Op.SHARE_RECORDS,
  name: 'SHARE_RECORDS',
  encode(w, m) {
    let size = 16;
    for (const x of m.records) size += strBound(x.topic) + 42 + x.key.length + x.value.length;
    w.reserve(size);
    w.u64(m.brokerTimeMs).u32(m.records.length);
    let topic = '';
    let topicBytes: Buffer = Buffer.alloc(0);
    for (const x of m.records) {
      // Records of one partition come together: encode the topic once per run, not per record.
      if (x.topic !== topic) topicBytes = Buffer.from((topic = x.topic), 'utf8');
      w.str(topicBytes).u32(x.partition).u64(x.offset).u64(x.timestamp).u16(x.deliveryCount).u64(x.lockDeadlineMs);
      w.str(x.key).str(x.value);
    }
    writeAckResults(w, m.results);
  },
  decode(r) {
    const at = r.offset;
    const rest = r.bytes(r.remaining, 'broker_time_ms');
    // The strict decoder, over the same bytes with the same offsets, is what names the problem in malformed input.
    return decodeRecordsFast(rest, at) ?? strictDecodeRecords(new Reader(rest, 0, rest.length, -at));
  },
});

function strictDecodeRecords(r: Reader): ShareRecords {
  const brokerTimeMs = r.u64('broker_time_ms');
  const n = r.count('count', MIN_SHARE_RECORD_BYTES);
  const records = new Array<ShareRecord>(n);
  let i = 0;
  try {
    for (; i < n; i++) {
      records[i] = {
        topic: r.str('topic', Caps.topic),
        partition: r.u32('partition'),
        offset: r.u64('offset'),
        timestamp: r.u64('timestamp_ms'),
        deliveryCount: r.u16('delivery_count'),
        lockDeadlineMs: r.u64('lock_deadline_ms'),
        key: r.strBytes('key'),
        value: r.strBytes('value', Number.MAX_SAFE_INTEGER),
      };
    }
  } catch (err) {
    throw inEntry(err, `records[${i}]`);
  }
  return { brokerTimeMs, records, results: readAckResults(r) };
}

/**
 * The hot path: the strict decoder's checks (count fits, every length within its cap and the bytes left) on raw
 * indices, no Reader call per field, the topic decoded once per run of equal names and the lock deadline's bigint
 * shared by the records of one run (the broker writes one deadline per run acquired). Undefined at the first failed
 * check, leaving the error to the strict decoder.
 */
function decodeRecordsFast(b: Buffer, at: number): ShareRecords | undefined {
  const end = b.length;
  if (end < 12) return undefined;
  const brokerTimeMs = u64At(b, 0);
  const n = u32At(b, 8);
  if (n > Math.floor((end - 12) / MIN_SHARE_RECORD_BYTES)) return undefined;
  const records = new Array<ShareRecord>(n);
  let p = 12;
  let topicStart = -1;
  let topicLen = -1;
  let topic = '';
  let lockHigh = -1;
  let lockLow = -1;
  let lock = 0n;
  // Views over the ArrayBuffer, read once: its getter is a runtime call (byte-view.ts arrayBufferView).
  const ab = b.buffer;
  const base = b.byteOffset;
  for (let i = 0; i < n; i++) {
    if (end - p < 4) return undefined;
    const tLen = u32At(b, p);
    p += 4;
    if (tLen > Caps.topic || tLen > end - p) return undefined;
    if (tLen !== topicLen || !sameRange(b, p, topicStart, tLen)) {
      topic = b.toString('utf8', p, p + tLen);
      topicStart = p;
      topicLen = tLen;
    }
    p += tLen;
    if (end - p < 34) return undefined;
    const high = u32At(b, p + 22);
    const low = u32At(b, p + 26);
    if (high !== lockHigh || low !== lockLow) {
      lock = u64At(b, p + 22);
      lockHigh = high;
      lockLow = low;
    }
    const partition = u32At(b, p);
    const offset = u64At(b, p + 4);
    const timestamp = u64At(b, p + 12);
    const deliveryCount = (b[p + 20]! << 8) | b[p + 21]!;
    const kLen = u32At(b, p + 30);
    p += 34;
    if (kLen > Caps.default || kLen > end - p) return undefined;
    const key = arrayBufferView(ab, base + p, kLen);
    p += kLen;
    if (end - p < 4) return undefined;
    const vLen = u32At(b, p);
    p += 4;
    if (vLen > end - p) return undefined;
    const value = arrayBufferView(ab, base + p, vLen);
    p += vLen;
    records[i] = { topic, partition, offset, timestamp, deliveryCount, lockDeadlineMs: lock, key, value };
  }
  return { brokerTimeMs, records, results: readAckResults(new Reader(b, p, end, -at)) };
}
