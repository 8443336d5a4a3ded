/**
 * PRODUCE_BATCH (0x17)
 *   u8 flags                     bit 0 IDEMPOTENT · bit 1 HEADERS · bit 2 PARTITION (crater extensions, docs/extensions.md;
 *                                only sent to a crater broker)
 *   u8 codec                     applied by the broker to every value
 *   str topic (cap 249)
 *   [u64 pid · u32 base_seq · u16 epoch]          only with IDEMPOTENT
 *   [u32 partition]              only with PARTITION: every record goes to this 1-based partition
 *   u32 count                    1..10,000, else DecodeError (the broker answers ERR 1)
 *   count × (str key · str value · [header block, only with HEADERS])
 *
 * PRODUCE_BATCH_ACK (0x8B)
 *   u32 count · count × (u32 partition · u64 offset)    always a prefix of the request's records
 *   u16 err_code · str err_message                       0 and "" when every record landed
 *
 * Hot path: keys and values decode as zero-copy views of the payload, and the encoders size the writer once. Caps
 * (65,536 for keys and values) apply on decode; encoders write what they are given, the client checks first.
 */
import { DecodeError } from '../../errors.js';
import { type RecordHeader, readHeaders, writeHeaders } from '../headers.js';
import { byteView } from '../byte-view.js';
import { Caps, Limits } from '../limits.js';
import { u32At, u64At } from '../raw-ints.js';
import { Reader } from '../reader.js';
import { defineMessage } from '../message.js';
import { BatchFlag, Op } from '../opcodes.js';
import { headersBound, inEntry, strBound } from './field-path.js';
import type { ProduceAck } from './produce.js';

export interface BatchRecord {
  key: Buffer;
  value: Buffer;
  /** Sent and decoded only when the batch has BATCH_FLAG_HEADERS; undefined is written as an empty block. */
  headers?: RecordHeader[] | undefined;
}

export interface ProduceBatch {
  /** Raw flag byte: bits other than IDEMPOTENT and HEADERS are carried through untouched. */
  flags: number;
  codec: number;
  topic: string;
  /** producerId, baseSeq and epoch are present exactly when `flags` has BATCH_FLAG_IDEMPOTENT. */
  producerId?: bigint | undefined;
  baseSeq?: number | undefined;
  epoch?: number | undefined;
  /** Present exactly when `flags` has BATCH_FLAG_PARTITION: the 1-based partition every record goes to. */
  partition?: number | undefined;
  records: BatchRecord[];
}

export interface ProduceBatchAck {
  acks: ProduceAck[];
  errorCode: number;
  errorMessage: string;
}

/** Smallest entry: two empty strings, plus a zero-header block when HEADERS is set. */
const MIN_ENTRY = 8;
const MIN_ENTRY_WITH_HEADERS = 10;

export const ProduceBatchRequest = defineMessage<ProduceBatch>({
  op: Op.PRODUCE_BATCH,
  name: 'PRODUCE_BATCH',
  encode(w, m) {
    const idempotent = (m.flags & BatchFlag.IDEMPOTENT) !== 0;
    const withHeaders = (m.flags & BatchFlag.HEADERS) !== 0;
    const records = m.records;
    const fixed = (m.flags & BatchFlag.PARTITION) !== 0;
    let size = 2 + strBound(m.topic) + (idempotent ? 14 : 0) + (fixed ? 4 : 0) + 4;
    for (let i = 0; i < records.length; i++) {
      const rec = records[i]!;
      size += 8 + rec.key.length + rec.value.length;
      if (withHeaders) size += headersBound(rec.headers);
    }
    w.reserve(size);
    w.u8(m.flags).u8(m.codec).str(m.topic);
    if (idempotent) {
      if (m.producerId === undefined || m.baseSeq === undefined || m.epoch === undefined) {
        throw new RangeError('an IDEMPOTENT PRODUCE_BATCH needs producerId, baseSeq and epoch');
      }
      w.u64(m.producerId).u32(m.baseSeq).u16(m.epoch);
    }
    if (fixed) {
      if (m.partition === undefined) throw new RangeError('a PARTITION PRODUCE_BATCH needs partition');
      w.u32(m.partition);
    }
    w.u32(records.length);
    for (let i = 0; i < records.length; i++) {
      const rec = records[i]!;
      w.str(rec.key).str(rec.value);
      if (withHeaders) writeHeaders(w, rec.headers);
    }
  },
  decode(r) {
    const { message, n } = readBatchHead(r);
    const withHeaders = (message.flags & BatchFlag.HEADERS) !== 0;
    const records = new Array<BatchRecord>(n);
    let i = 0;
    try {
      if (withHeaders) {
        for (; i < n; i++) records[i] = { key: r.strBytes('key'), value: r.strBytes('value'), headers: readHeaders(r) };
      } else {
        const at = r.offset;
        const rest = r.rest();
        // The strict loop, over the same bytes with the same offsets, names the problem in malformed input.
        if (decodePlainEntries(rest, records, n)) {
          message.records = records;
          return message;
        }
        const strict = new Reader(rest, 0, rest.length, -at);
        for (; i < n; i++) records[i] = { key: strict.strBytes('key'), value: strict.strBytes('value') };
      }
    } catch (err) {
      throw inEntry(err, `records[${i}]`);
    }
    message.records = records;
    return message;
  },
});

/**
 * Everything of a PRODUCE_BATCH before its entries (`records` left empty), and the checked entry count: at least 1,
 * at most Limits.batchRecords, and no more than the bytes left could hold.
 */
export function readBatchHead(r: Reader): { message: ProduceBatch; n: number } {
  const flags = r.u8('flags');
  const codec = r.u8('codec');
  const topic = r.str('topic', Caps.topic);
  const message: ProduceBatch = { flags, codec, topic, records: [] };
  if (flags & BatchFlag.IDEMPOTENT) {
    message.producerId = r.u64('pid');
    message.baseSeq = r.u32('base_seq');
    message.epoch = r.u16('epoch');
  }
  if (flags & BatchFlag.PARTITION) message.partition = r.u32('partition');
  const withHeaders = (flags & BatchFlag.HEADERS) !== 0;
  const countAt = r.offset;
  const n = r.count('count', withHeaders ? MIN_ENTRY_WITH_HEADERS : MIN_ENTRY, Limits.batchRecords);
  if (n === 0) throw new DecodeError('count', countAt, 'a batch needs at least 1 record');
  return { message, n };
}

/**
 * The hot path of a header-less batch: `n` entries of `b` decoded on raw indices into `out` as zero-copy views, with
 * the strict loop's checks (every length within its cap and the bytes left). False at the first failed check.
 */
function decodePlainEntries(b: Buffer, out: BatchRecord[], n: number): boolean {
  const end = b.length;
  const cap = Caps.default;
  let p = 0;
  for (let i = 0; i < n; i++) {
    if (end - p < 4) return false;
    const kLen = u32At(b, p);
    p += 4;
    if (kLen > cap || kLen > end - p) return false;
    const key = byteView(b, p, p + kLen);
    p += kLen;
    if (end - p < 4) return false;
    const vLen = u32At(b, p);
    p += 4;
    if (vLen > cap || vLen > end - p) return false;
    out[i] = { key, value: byteView(b, p, p + vLen) };
    p += vLen;
  }
  return true;
}

export const ProduceBatchAckReply = defineMessage<ProduceBatchAck>({
  op: Op.PRODUCE_BATCH_ACK,
  name: 'PRODUCE_BATCH_ACK',
  encode(w, m) {
    const acks = m.acks;
    w.reserve(4 + acks.length * 12 + 2 + strBound(m.errorMessage));
    w.u32(acks.length);
    for (let i = 0; i < acks.length; i++) w.u32(acks[i]!.partition).u64(acks[i]!.offset);
    w.u16(m.errorCode).str(m.errorMessage);
  },
  decode(r) {
    // count() checked that n acks of 12 bytes are there, so the raw loop reads within the payload.
    const n = r.count('count', 12, Limits.batchRecords);
    const acks = decodeAcks(r.bytes(n * 12, 'acks'), n);
    return { acks, errorCode: r.u16('err_code'), errorMessage: r.str('err_message') };
  },
});

/** `n` acks of 12 bytes each from `b`, the offsets through raw-ints' u64At (one conversion below 2^53). */
function decodeAcks(b: Buffer, n: number): ProduceAck[] {
  const acks = new Array<ProduceAck>(n);
  for (let i = 0, p = 0; i < n; i++, p += 12) acks[i] = { partition: u32At(b, p), offset: u64At(b, p + 4) };
  return acks;
}
