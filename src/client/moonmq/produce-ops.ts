/**
 * PRODUCE and PRODUCE_BATCH on one session. A batch is N ordinary appends sharing a frame, not an atomic unit
 * (seed 000): the ack list is a prefix of the records, and an ack with err_code ≠ 0 is a partial append whose
 * landed acks are returned next to the error. A failure before anything landed is an ERROR frame and throws.
 */
import { CraterError, UsageError } from '../../errors.js';
import type { RecordHeader } from '../../protocol/headers.js';
import { Caps, DEFAULT_MAX_FRAME_SIZE, FRAME_LENGTH_BYTES, FRAME_HEADER_BYTES, Limits } from '../../protocol/limits.js';
import { ProduceBatchAckReply, ProduceBatchRequest, type BatchRecord } from '../../protocol/messages/produce-batch.js';
import { ProduceAckReply, ProduceRequest, type ProduceAck } from '../../protocol/messages/produce.js';
import { BatchFlag, Codec, codecNames, type CodecId, type CodecName } from '../../protocol/opcodes.js';
import { Writer } from '../../protocol/writer.js';
import { brokerError } from './connection.js';
import type { Session } from './session.js';
import { batchOverhead, splitBatch } from './split-batch.js';
import type { BatchResult, EncodedEntries, ProducerRecord } from '../producer/sink.js';
import { type EncodedProduceBatch, EncodedProduceBatchRequest, encodedBatchSize } from './batch-entries.js';
import {
  validateBatchCount,
  validateBytes,
  validateHeaders,
  isOneOf,
  validatePartitionId,
  validateTopicName,
} from '../validate.js';

export type { BatchResult, ProduceAck, ProducerRecord };

export interface ProduceOptions {
  /** The broker compresses the (plaintext) value with this codec before storing it. */
  codec?: CodecId | CodecName | undefined;
  timeoutMs?: number | undefined;
  /**
   * PRODUCE_BATCH only: send every record to this 1-based partition (BATCH_FLAG_PARTITION, a crater extension; a
   * UsageError before anything is sent to another broker).
   */
  partition?: number | undefined;
}

const EMPTY = Buffer.alloc(0);

export function toBuffer(v: Buffer | string | undefined): Buffer {
  if (v === undefined) return EMPTY;
  return typeof v === 'string' ? Buffer.from(v, 'utf8') : v;
}

export function codecId(codec: CodecId | CodecName | undefined): CodecId {
  if (codec === undefined) return Codec.NONE;
  if (typeof codec === 'number') {
    if (isOneOf(codec, [Codec.NONE, Codec.GZIP, Codec.SNAPPY])) return codec;
    throw new UsageError(`unknown codec ${String(codec)}: use 0 none, 1 gzip or 2 snappy`);
  }
  const id = codecNames.indexOf(codec);
  if (id < 0) throw new UsageError(`unknown codec '${String(codec)}': use none, gzip or snappy`);
  return id as CodecId;
}

export function requireHeaderSupport(session: Session): void {
  if (!session.server.isCrater) {
    const who = session.server.name ?? 'a broker that did not identify itself';
    throw new UsageError(`record headers need a crater broker; ${session.conn.label} is ${who}, nothing was sent`);
  }
}

export function requirePartitionSupport(session: Session): void {
  if (!session.server.isCrater) {
    const who = session.server.name ?? 'a broker that did not identify itself';
    throw new UsageError(
      `choosing the partition needs a crater broker; ${session.conn.label} is ${who}, nothing was sent`,
    );
  }
}

export async function produce(
  session: Session,
  topic: string,
  record: ProducerRecord,
  options: ProduceOptions = {},
): Promise<ProduceAck> {
  validateTopicName(topic);
  if (record.headers && record.headers.length > 0) {
    throw new UsageError('PRODUCE carries no headers; send a record with headers through produceBatch');
  }
  if (options.partition !== undefined) throw new UsageError('PRODUCE cannot choose a partition; use produceBatch');
  const key = toBuffer(record.key);
  const value = toBuffer(record.value);
  validateBytes('key', key);
  validateBytes('value', value);
  const message = { codec: codecId(options.codec), topic, key, value };
  return session.conn.request(ProduceRequest, message, ProduceAckReply, { timeoutMs: options.timeoutMs });
}

/**
 * Converts and validates records once, deciding whether the batch needs BATCH_FLAG_HEADERS; `bytes` is the key and
 * value bytes plus their 8 length bytes (what the entries take in the frame, header blocks aside).
 */
export function prepareBatch(records: readonly ProducerRecord[]): {
  records: BatchRecord[];
  withHeaders: boolean;
  bytes: number;
} {
  validateBatchCount(records.length, Limits.batchRecords);
  const out = new Array<BatchRecord>(records.length);
  let withHeaders = false;
  let bytes = 0;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const key = toBuffer(r.key);
    const value = toBuffer(r.value);
    bytes += 8 + key.length + value.length;
    // Checked via a cheap test first so a large batch builds no per-record field names.
    if (key.length > Caps.default || value.length > Caps.default) {
      validateBytes(`records[${i}].key`, key);
      validateBytes(`records[${i}].value`, value);
    }
    if (r.headers && r.headers.length > 0) {
      validateHeaders(`records[${i}].headers`, r.headers);
      withHeaders = true;
      out[i] = { key, value, headers: r.headers as RecordHeader[] };
    } else {
      // A record whose key and value are Buffers already is its own BatchRecord: no object per record.
      out[i] = key === r.key && value === r.value ? (r as BatchRecord) : { key, value };
    }
  }
  return { records: out, withHeaders, bytes };
}

/**
 * PRODUCE_BATCH of `records`. A batch whose frame would pass the broker's default 1 MiB limit goes as several
 * frames under it, one after the other: a batch is N ordinary appends anyway, and a frame is sent only once the
 * one before it was acked whole, so the acks stay a list-order prefix when one fails.
 */
export async function produceBatch(
  session: Session,
  topic: string,
  records: readonly ProducerRecord[],
  options: ProduceOptions = {},
): Promise<BatchResult> {
  validateTopicName(topic);
  const prepared = prepareBatch(records);
  if (prepared.withHeaders) requireHeaderSupport(session);
  const { partition } = options;
  if (partition !== undefined) {
    validatePartitionId(partition);
    requirePartitionSupport(session);
  }
  const message = {
    flags: (prepared.withHeaders ? BatchFlag.HEADERS : 0) | (partition === undefined ? 0 : BatchFlag.PARTITION),
    codec: codecId(options.codec),
    topic,
    partition,
    records: prepared.records,
  };
  const overhead = batchOverhead(Buffer.byteLength(topic), false, partition !== undefined);
  if (prepared.withHeaders || overhead + prepared.bytes > DEFAULT_MAX_FRAME_SIZE) {
    const chunks = splitBatch(prepared.records, { topic, fixedPartition: partition !== undefined });
    if (chunks.length > 1) return produceChunks(session, message, chunks, options.timeoutMs);
  }
  return sendBatch(session, message, options.timeoutMs);
}

type BatchMessage = Parameters<typeof ProduceBatchRequest.encode>[1];

async function sendBatch(session: Session, message: BatchMessage, timeoutMs: number | undefined): Promise<BatchResult> {
  return batchResult(await session.conn.request(ProduceBatchRequest, message, ProduceBatchAckReply, { timeoutMs }));
}

/** The chunks in order; the first that fails ends it, with the acks of everything before it. */
async function produceChunks(
  session: Session,
  message: BatchMessage,
  chunks: readonly BatchRecord[][],
  timeoutMs: number | undefined,
): Promise<BatchResult> {
  const acks: ProduceAck[] = [];
  for (const chunk of chunks) {
    let result: BatchResult;
    try {
      result = await sendBatch(session, { ...message, records: chunk }, timeoutMs);
    } catch (err) {
      // Acks already in hand are not dropped for a failure past them (a CraterError: broker or connection).
      if (acks.length === 0 || !(err instanceof CraterError)) throw err;
      return { acks, error: err };
    }
    for (const a of result.acks) acks.push(a);
    if (result.error) return { acks, error: result.error };
  }
  return { acks };
}

/** The buffer size an encoded batch's whole frame needs (length prefix included), so it is allocated exactly once. */
export function encodedFrameSize(message: EncodedProduceBatch): number {
  return FRAME_LENGTH_BYTES + FRAME_HEADER_BYTES + encodedBatchSize(message);
}

/** Reads a PRODUCE_BATCH_ACK into the prefix contract: acks, plus the error of a partial append; none landed throws. */
export function batchResult(ack: { acks: ProduceAck[]; errorCode: number; errorMessage: string }): BatchResult {
  if (ack.errorCode === 0) return { acks: ack.acks };
  const error = brokerError(ack.errorCode, ack.errorMessage);
  if (ack.acks.length === 0) throw error;
  return { acks: ack.acks, error };
}

/** produceBatch for entries the accumulator encoded already (batch-entries.ts); the same checks, the same result. */
export async function produceEntries(
  session: Session,
  topic: string,
  entries: EncodedEntries,
  options: ProduceOptions = {},
): Promise<BatchResult> {
  validateTopicName(topic);
  validateBatchCount(entries.count, Limits.batchRecords);
  if (entries.withHeaders) requireHeaderSupport(session);
  const { partition } = options;
  if (partition !== undefined) {
    validatePartitionId(partition);
    requirePartitionSupport(session);
  }
  const message: EncodedProduceBatch = {
    flags: (entries.withHeaders ? BatchFlag.HEADERS : 0) | (partition === undefined ? 0 : BatchFlag.PARTITION),
    codec: codecId(options.codec),
    topic,
    partition,
    entries,
  };
  const ack = await session.conn.request(EncodedProduceBatchRequest, message, ProduceBatchAckReply, {
    timeoutMs: options.timeoutMs,
    sizeHint: encodedFrameSize(message),
  });
  return batchResult(ack);
}

/** A batch encoded when it was prepared and sent later, so a caller can encode the next batch while one is in flight. */
export interface PreparedBatch {
  readonly count: number;
  send(): Promise<BatchResult>;
}

/**
 * produceBatch in two steps: the checks and the entries' encoding now, the request on `send()` (the frame then
 * copies the entries once). A batch with headers or past one frame is encoded when sent, as produceBatch does it.
 */
export function prepareProduceBatch(
  session: Session,
  topic: string,
  records: readonly ProducerRecord[],
  options: ProduceOptions = {},
): PreparedBatch {
  validateTopicName(topic);
  const prepared = prepareBatch(records);
  const overhead = batchOverhead(Buffer.byteLength(topic), false, options.partition !== undefined);
  if (prepared.withHeaders || overhead + prepared.bytes > DEFAULT_MAX_FRAME_SIZE) {
    return { count: records.length, send: () => produceBatch(session, topic, records, options) };
  }
  const w = new Writer(0, takeSpare(prepared.bytes));
  for (const r of prepared.records) w.str(r.key).str(r.value);
  const buf = w.finish();
  const entries: EncodedEntries = { parts: [buf], byteLength: buf.length, count: records.length, withHeaders: false };
  let sent: Promise<BatchResult> | undefined;
  const send = (): Promise<BatchResult> => {
    if (sent) return sent;
    sent = produceEntries(session, topic, entries, options);
    // The request encoded its frame (a copy of the entries) before returning, or failed before that: either way
    // nothing refers to the buffer any more, and the next prepared batch may write into it.
    keepSpare(buf);
    return sent;
  };
  return { count: records.length, send };
}

/**
 * Entries buffers kept for the next prepared batches (one per batch a caller keeps in flight, up to 8): a batch of
 * 1,000 records is past malloc's mmap threshold, so a fresh buffer per batch costs an mmap, a page fault per 4 KiB
 * written and a munmap at its collection.
 */
const spares: Buffer[] = [];
const MAX_SPARES = 8;
const SPARE_MIN_BYTES = 64 * 1024;

function takeSpare(bytes: number): Buffer {
  for (let i = spares.length - 1; i >= 0; i--) {
    const s = spares[i]!;
    if (s.buffer.byteLength < bytes) continue;
    spares.splice(i, 1);
    return Buffer.from(s.buffer, 0, bytes);
  }
  return Buffer.allocUnsafe(bytes);
}

function keepSpare(buf: Buffer): void {
  if (buf.byteOffset !== 0 || buf.buffer.byteLength < SPARE_MIN_BYTES) return;
  if (spares.length === MAX_SPARES) spares.shift();
  spares.push(buf);
}
