/**
 * PRODUCE_BATCH and PRODUCE_BATCH_ACK (produce-batch.ts) in table form, the broker's produce hot path: a header-less
 * batch is read as one entry table instead of a record object and two Buffer views per record, and the ack is
 * written from typed arrays instead of an object and a bigint per record. The bytes are the same; only the in-memory
 * shape differs.
 */
import { Caps, Limits } from '../limits.js';
import { defineMessage } from '../message.js';
import { BatchFlag, Op } from '../opcodes.js';
import { u32At } from '../raw-ints.js';
import { Reader } from '../reader.js';
import { inEntry, strBound } from './field-path.js';
import { type ProduceBatch, readBatchHead } from './produce-batch.js';

/**
 * A header-less PRODUCE_BATCH: the fields before its entries (`records` empty), and entry i's key at
 * `src[table[4i], +table[4i+1])` and value at `src[table[4i+2], +table[4i+3])`.
 */
export interface ProduceBatchTable {
  head: ProduceBatch;
  count: number;
  src: Buffer;
  table: Uint32Array;
}

/**
 * The table of a header-less batch, with every check of ProduceBatchRequest.decode; undefined for a batch with
 * HEADERS (the caller decodes it as records). A malformed batch throws the DecodeError that decode would.
 */
export function decodeProduceBatchTable(payload: Buffer): ProduceBatchTable | undefined {
  const r = new Reader(payload);
  if (payload.length > 0 && payload[0]! & BatchFlag.HEADERS) return undefined;
  const { message, n } = readBatchHead(r);
  const table = new Uint32Array(n * 4);
  if (!scanEntries(payload, r.offset, table, n)) strictScan(payload, r.offset, n);
  return { head: message, count: n, src: payload, table };
}

/** Entry positions on raw indices, with the strict reader's checks (caps, bytes left); false at the first failure. */
function scanEntries(b: Buffer, start: number, table: Uint32Array, n: number): boolean {
  const end = b.length;
  const cap = Caps.default;
  let p = start;
  for (let i = 0, e = 0; i < n; i++, e += 4) {
    if (end - p < 4) return false;
    const kLen = u32At(b, p);
    p += 4;
    if (kLen > cap || kLen > end - p) return false;
    table[e] = p;
    table[e + 1] = kLen;
    p += kLen;
    if (end - p < 4) return false;
    const vLen = u32At(b, p);
    p += 4;
    if (vLen > cap || vLen > end - p) return false;
    table[e + 2] = p;
    table[e + 3] = vLen;
    p += vLen;
  }
  return true;
}

/** The strict loop over the same bytes, for its DecodeError (which scanEntries found there is one to throw). */
function strictScan(b: Buffer, start: number, n: number): never {
  const r = new Reader(b, start, b.length, 0);
  let i = 0;
  try {
    for (; i < n; i++) {
      r.strBytes('key');
      r.strBytes('value');
    }
  } catch (err) {
    throw inEntry(err, `records[${i}]`);
  }
  throw new Error('scanEntries refused entries that the strict reader accepts');
}

/** A PRODUCE_BATCH_ACK's acks as arrays: ack i is (partitions[i], offsets[i]) for i < count. */
export interface ProduceBatchAckTable {
  count: number;
  partitions: Uint16Array | Uint32Array;
  offsets: Float64Array;
  errorCode: number;
  errorMessage: string;
}

export const ProduceBatchAckTableReply = defineMessage<ProduceBatchAckTable>({
  op: Op.PRODUCE_BATCH_ACK,
  name: 'PRODUCE_BATCH_ACK',
  encode(w, m) {
    const { count, partitions, offsets } = m;
    w.reserve(4 + count * 12 + 2 + strBound(m.errorMessage));
    w.u32(count);
    for (let i = 0; i < count; i++) w.u32(partitions[i]!).u64Number(offsets[i]!);
    w.u16(m.errorCode).str(m.errorMessage);
  },
  decode(r) {
    const count = r.count('count', 12, Limits.batchRecords);
    const partitions = new Uint32Array(count);
    const offsets = new Float64Array(count);
    let i = 0;
    try {
      for (; i < count; i++) {
        partitions[i] = r.u32('partition');
        offsets[i] = Number(r.u64('offset'));
      }
    } catch (err) {
      throw inEntry(err, `acks[${i}]`);
    }
    return { count, partitions, offsets, errorCode: r.u16('err_code'), errorMessage: r.str('err_message') };
  },
});
