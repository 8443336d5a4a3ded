/**
 * PRODUCE_BATCH entries encoded once, as the accumulator appends records (producer/sink.ts EntryWriter), and the
 * request that carries them. An entry is `str key · str value [· header block]` (wire.md, produce-batch.ts); the
 * frame around them is written when the batch is sent, so the producer id and sequence of an idempotent batch are
 * the ones current then.
 *
 * Entries go into chunks (4 KiB, then 16 KiB, then 64 KiB each), never reallocated, so a batch holds at most one
 * partly filled chunk beyond its entries and no growth copies them; the frame copies them once, into a buffer of its exact size.
 */
import { writeHeaders } from '../../protocol/headers.js';
import { defineMessage } from '../../protocol/message.js';
import { BatchFlag, Op } from '../../protocol/opcodes.js';
import { Writer } from '../../protocol/writer.js';
import { strBound } from '../../protocol/messages/field-path.js';
import type { BatchFraming, EncodedEntries, EntryWriter, ProducerRecord } from '../producer/sink.js';
import { batchEntrySize, batchOverhead, splitBatch } from './split-batch.js';

const CHUNK_SIZES = [4_096, 16_384, 65_536] as const;

/** Below this many bytes a loop copies faster than the native `set` call (a record key). */
const SMALL_COPY_BYTES = 32;

function putU32(buf: Buffer, at: number, v: number): void {
  buf[at] = v >>> 24;
  buf[at + 1] = v >>> 16;
  buf[at + 2] = v >>> 8;
  buf[at + 3] = v;
}

function writeStr(buf: Buffer, at: number, v: Buffer | string | undefined): number {
  if (v === undefined) {
    putU32(buf, at, 0);
    return at + 4;
  }
  if (typeof v === 'string') {
    const n = buf.write(v, at + 4, 'utf8');
    putU32(buf, at, n);
    return at + 4 + n;
  }
  const n = v.length;
  putU32(buf, at, n);
  const from = at + 4;
  if (n <= SMALL_COPY_BYTES) for (let i = 0; i < n; i++) buf[from + i] = v[i]!;
  else buf.set(v, from);
  return from + n;
}

export class ChunkedEntryWriter implements EntryWriter {
  private readonly chunks: Buffer[] = [];
  private current: Buffer | undefined;
  private pos = 0;
  private written = 0;

  get length(): number {
    return this.written;
  }

  /** Bytes allocated for the entries (what the writer holds). */
  get capacity(): number {
    let n = 0;
    for (const c of this.chunks) n += c.length;
    return n + (this.current?.length ?? 0);
  }

  append(record: ProducerRecord, withHeaders: boolean): void {
    const size = batchEntrySize(record, withHeaders);
    let buf = this.current;
    if (buf === undefined || buf.length - this.pos < size) buf = this.nextChunk(size);
    let at = writeStr(buf, this.pos, record.key);
    at = writeStr(buf, at, record.value);
    if (withHeaders) {
      const w = new Writer(size);
      writeHeaders(w, record.headers);
      const block = w.finish();
      buf.set(block, at);
      at += block.length;
    }
    this.written += at - this.pos;
    this.pos = at;
  }

  /** The filled part of every chunk, in order. */
  parts(): Buffer[] {
    const out = this.chunks.slice();
    if (this.current) out.push(this.current.subarray(0, this.pos));
    return out;
  }

  private nextChunk(size: number): Buffer {
    if (this.current) this.chunks.push(this.current.subarray(0, this.pos));
    const planned = CHUNK_SIZES[Math.min(this.chunks.length, CHUNK_SIZES.length - 1)]!;
    this.current = Buffer.allocUnsafe(Math.max(planned, size));
    this.pos = 0;
    return this.current;
  }
}

/** PRODUCE_BATCH's framing (split-batch.ts), for the accumulator. */
export function moonmqFraming(idempotent: boolean): BatchFraming {
  return {
    overhead: (topic, fixedPartition) => batchOverhead(Buffer.byteLength(topic), idempotent, fixedPartition),
    entrySize: batchEntrySize,
    split: (topic, records, limits) =>
      splitBatch(records, {
        topic,
        maxFrameBytes: limits.maxFrameBytes,
        maxRecords: limits.maxRecords,
        idempotent,
        fixedPartition: limits.fixedPartition,
      }),
  };
}

/** A PRODUCE_BATCH whose entries were encoded already (encode only: the broker decodes ProduceBatchRequest). */
export interface EncodedProduceBatch {
  flags: number;
  codec: number;
  topic: string;
  producerId?: bigint | undefined;
  baseSeq?: number | undefined;
  epoch?: number | undefined;
  partition?: number | undefined;
  entries: EncodedEntries;
}

/** FrameLen's payload part of an EncodedProduceBatch (for an exact-size frame buffer). */
export function encodedBatchSize(m: EncodedProduceBatch): number {
  const idempotent = (m.flags & BatchFlag.IDEMPOTENT) !== 0;
  const fixed = (m.flags & BatchFlag.PARTITION) !== 0;
  return 2 + strBound(m.topic) + (idempotent ? 14 : 0) + (fixed ? 4 : 0) + 4 + m.entries.byteLength;
}

export const EncodedProduceBatchRequest = defineMessage<EncodedProduceBatch>({
  op: Op.PRODUCE_BATCH,
  name: 'PRODUCE_BATCH',
  encode(w, m) {
    w.reserve(encodedBatchSize(m));
    w.u8(m.flags).u8(m.codec).str(m.topic);
    if ((m.flags & BatchFlag.IDEMPOTENT) !== 0) {
      if (m.producerId === undefined || m.baseSeq === undefined || m.epoch === undefined) {
        throw new RangeError('an IDEMPOTENT PRODUCE_BATCH needs producerId, baseSeq and epoch');
      }
      w.u64(m.producerId).u32(m.baseSeq).u16(m.epoch);
    }
    if ((m.flags & BatchFlag.PARTITION) !== 0) {
      if (m.partition === undefined) throw new RangeError('a PARTITION PRODUCE_BATCH needs partition');
      w.u32(m.partition);
    }
    w.u32(m.entries.count);
    for (const part of m.entries.parts) w.bytes(part);
  },
  decode() {
    throw new RangeError('EncodedProduceBatchRequest only encodes; decode with ProduceBatchRequest');
  },
});
