/**
 * Splits records into PRODUCE_BATCH-sized chunks. A chunk's frame is
 *
 *   FrameLen = 17 (op · correl) + 1 flags + 1 codec + 4 + topic + 4 count + Σ (4 + key + 4 + value [+ header block])
 *
 * plus 14 (u64 pid · u32 base_seq · u16 epoch) for an idempotent batch and 4 (u32 partition) for one with
 * BATCH_FLAG_PARTITION, and must not exceed `maxFrameBytes` (the
 * broker's check is "FrameLen > max"), nor hold more than `maxRecords`.
 * When any record carries headers the whole batch is sent with BATCH_FLAG_HEADERS, so every entry pays a header
 * block (2 bytes when empty). Order is kept: chunk i holds the records right after chunk i − 1.
 */
import { UsageError } from '../../errors.js';
import { headersSize } from '../../protocol/headers.js';
import { Caps, DEFAULT_MAX_FRAME_SIZE, FRAME_HEADER_BYTES, Limits } from '../../protocol/limits.js';
import type { ProducerRecord } from '../producer/sink.js';

export interface SplitOptions {
  /** Largest FrameLen a chunk may reach; the broker's default limit is 1 MiB. */
  maxFrameBytes?: number;
  /** At most this many records per chunk (the protocol allows 10,000). */
  maxRecords?: number;
  /** The topic the chunks go to; without it the 249-byte maximum is assumed. */
  topic?: string;
  /** The chunks go as IDEMPOTENT batches, whose frames carry the producer fields too. */
  idempotent?: boolean | undefined;
  /** The chunks carry BATCH_FLAG_PARTITION and its u32 partition. */
  fixedPartition?: boolean | undefined;
}

/** Bytes the producer id, base sequence and epoch add to an IDEMPOTENT PRODUCE_BATCH. */
export const IDEMPOTENT_BATCH_FIELDS = 14;

function byteLength(v: Buffer | string | undefined): number {
  if (v === undefined) return 0;
  return typeof v === 'string' ? Buffer.byteLength(v) : v.length;
}

/** Bytes one record adds to a PRODUCE_BATCH frame. */
export function batchEntrySize(record: ProducerRecord, withHeaders: boolean): number {
  const size = 8 + byteLength(record.key) + byteLength(record.value);
  return withHeaders ? size + headersSize(record.headers) : size;
}

/** FrameLen of a PRODUCE_BATCH to `topic` before any entry. */
export function batchOverhead(topicBytes: number, idempotent = false, fixedPartition = false): number {
  return (
    FRAME_HEADER_BYTES + 2 + 4 + topicBytes + 4 + (idempotent ? IDEMPOTENT_BATCH_FIELDS : 0) + (fixedPartition ? 4 : 0)
  );
}

export function splitBatch<R extends ProducerRecord>(records: readonly R[], options: SplitOptions = {}): R[][] {
  const maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_SIZE;
  const maxRecords = options.maxRecords ?? Limits.batchRecords;
  if (!Number.isInteger(maxRecords) || maxRecords < 1 || maxRecords > Limits.batchRecords) {
    throw new UsageError(`maxRecords must be 1..${Limits.batchRecords}, got ${maxRecords}`);
  }
  const overhead = batchOverhead(
    options.topic === undefined ? Caps.topic : Buffer.byteLength(options.topic),
    options.idempotent,
    options.fixedPartition,
  );
  const withHeaders = records.some((r) => r.headers !== undefined && r.headers.length > 0);

  const chunks: R[][] = [];
  let chunk: R[] = [];
  let size = overhead;
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    const entry = batchEntrySize(record, withHeaders);
    if (overhead + entry > maxFrameBytes) {
      throw new UsageError(
        `record ${i} needs a ${overhead + entry}-byte frame on its own, over the ${maxFrameBytes}-byte limit`,
      );
    }
    if (chunk.length === maxRecords || size + entry > maxFrameBytes) {
      chunks.push(chunk);
      chunk = [];
      size = overhead;
    }
    chunk.push(record);
    size += entry;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}
