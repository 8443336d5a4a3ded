/**
 * How the accumulator sizes batches for Kafka (the BatchFraming of client/producer/sink.ts). Kafka's own limit is
 * the producer's max.request.size (1 MiB by default) over a v2 record batch: a fixed batch header plus, per record,
 * a few varints around the key, value and headers. The figures are upper bounds of those varints, so a batch the
 * accumulator cuts by them never passes the limit.
 */
import type { BatchFraming, ProducerRecord } from '../producer/sink.js';

/** Kafka's default max.request.size. */
const MAX_REQUEST_BYTES = 1024 * 1024;
/** A produce request's header, topic and partition framing, and the v2 record batch header (61 bytes). */
const REQUEST_OVERHEAD = 128;
/** Per record: length, attributes, timestamp and offset deltas, key and value lengths, header count (varints). */
const RECORD_OVERHEAD = 5 + 1 + 10 + 5 + 5 + 5 + 5;
/** Per header: name and value lengths (varints). */
const HEADER_OVERHEAD = 10;

const byteLength = (b: Buffer | string | undefined): number =>
  b === undefined ? 0 : typeof b === 'string' ? Buffer.byteLength(b) : b.length;

function entrySize(record: ProducerRecord, withHeaders: boolean): number {
  let size = RECORD_OVERHEAD + byteLength(record.key) + byteLength(record.value);
  if (withHeaders && record.headers)
    for (const h of record.headers) size += HEADER_OVERHEAD + Buffer.byteLength(h.name) + h.value.length;
  return size;
}

export const kafkaFraming: BatchFraming = {
  overhead: (topic) => REQUEST_OVERHEAD + Buffer.byteLength(topic),
  entrySize,
  split(topic, records, limits) {
    const maxBytes = limits.maxFrameBytes ?? MAX_REQUEST_BYTES;
    const chunks: (typeof records)[number][][] = [];
    let chunk: (typeof records)[number][] = [];
    let bytes = REQUEST_OVERHEAD + Buffer.byteLength(topic);
    const base = bytes;
    for (const r of records) {
      const size = entrySize(r, true);
      if (chunk.length > 0 && (chunk.length >= limits.maxRecords || bytes + size > maxBytes)) {
        chunks.push(chunk);
        chunk = [];
        bytes = base;
      }
      chunk.push(r);
      bytes += size;
    }
    if (chunk.length > 0) chunks.push(chunk);
    return chunks;
  },
};
