/**
 * What the accumulator asks of its sink, in one place: whether a record fits (caps, headers, the frame limit), what
 * it costs in the buffer, the entry writer of a new batch, and the request that carries a batch (the single-record
 * request for a lone record, encoded entries where the sink takes them, records otherwise, or one topic-partition
 * for a sink that partitions in the client).
 */
import { type DeliveryRequest, UncertainDeliveryError, UsageError } from '../../errors.js';
import { Caps } from '../../protocol/limits.js';
import type { CodecId, CodecName } from '../../protocol/opcodes.js';
import { validateHeaders, validateTopicName } from '../validate.js';
import type { ResolvedAccumulatorOptions } from './accumulator-options.js';
import type { ProducerBatch } from './producer-batch.js';
import {
  type BatchResult,
  type EntryWriter,
  isPartitionedSink,
  type PartitionedProduceSink,
  type ProducerRecord,
  type ProduceSink,
} from './sink.js';

/**
 * What a record costs in the buffer beyond its bytes: its promise, its reaction on the batch's promise, its array
 * slots, and the promise and reaction of the caller's own handler on it. Measured on Node 20 as the heap growth per
 * pending send() with a handler attached, records shared (about 203 bytes; 340 before the batch promise replaced
 * the per-record resolving functions; docs/producer.md says how).
 */
export const RECORD_OVERHEAD_BYTES = 208;

/**
 * What one record holds of the buffer: its own bytes (the accumulator keeps the record until it settles, for its
 * outcome and any resend), their encoded copy (the batch's entries, then the frame) when the sink takes encoded
 * entries, and RECORD_OVERHEAD_BYTES.
 */
export function recordCharge(entryBytes: number, encoded: boolean): number {
  return (encoded ? 2 * entryBytes : entryBytes) + RECORD_OVERHEAD_BYTES;
}

export interface AccumulatorTraits {
  codec?: CodecId | CodecName | undefined;
  /** The sink sends every batch to one partition (a 4-byte field in each frame; a single record goes as a batch too). */
  fixedPartition?: boolean | undefined;
}

function byteLength(v: Buffer | string | undefined): number {
  return v === undefined ? 0 : typeof v === 'string' ? Buffer.byteLength(v) : v.length;
}

export function hasHeaders(record: ProducerRecord): boolean {
  return record.headers !== undefined && record.headers.length > 0;
}

/**
 * The errors of a batch whose request may have landed, one per record (each carries its record), built by
 * ProducerBatch.failLazily as each record's promise settles. No stack trace: it would only show a timer or socket
 * callback, and capturing thousands stalls the event loop that has to fire the next deadlines.
 */
export function uncertainErrors(batch: ProducerBatch, why: string, cause?: Error): (i: number) => Error {
  const request = batch.request!;
  const records = batch.records;
  return (i) => {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      const at: DeliveryRequest = { ...request, position: i };
      return new UncertainDeliveryError(records[i], at, why, { cause });
    } finally {
      Error.stackTraceLimit = limit;
    }
  };
}

export class SinkAdapter {
  readonly partitioned: boolean;
  /** The sink takes entries encoded at append (sendEntries): each record is encoded once. */
  readonly encodes: boolean;
  private lastTopic = '';
  private lastOverhead = 0;

  constructor(
    readonly sink: ProduceSink,
    private readonly options: ResolvedAccumulatorOptions,
    private readonly traits: AccumulatorTraits,
  ) {
    this.partitioned = isPartitionedSink(sink);
    this.encodes = !this.partitioned && sink.sendEntries !== undefined && sink.entryWriter !== undefined;
  }

  /**
   * Validates one record and returns its batch entry size; throws UsageError for what no batch can carry. `known`:
   * the topic has an open batch, so its name was checked already.
   */
  checkRecord(topic: string, record: ProducerRecord, known: boolean): number {
    if (!known) validateTopicName(topic);
    const keyBytes = byteLength(record.key);
    const valueBytes = byteLength(record.value);
    if (keyBytes > Caps.default)
      throw new UsageError(`key is ${keyBytes} bytes, over the cap of ${Caps.default}; not sent`);
    if (valueBytes > Caps.default)
      throw new UsageError(`value is ${valueBytes} bytes, over the cap of ${Caps.default}; not sent`);
    let entry = 8 + keyBytes + valueBytes;
    if (hasHeaders(record)) {
      validateHeaders('headers', record.headers!);
      entry = this.sink.framing.entrySize(record, true);
    }
    const frame = this.overhead(topic) + entry;
    if (frame > this.options.maxFrameBytes) {
      throw new UsageError(
        `record needs a ${frame}-byte frame, over the ${this.options.maxFrameBytes}-byte limit; not sent`,
      );
    }
    return entry;
  }

  charge(entry: number): number {
    return recordCharge(entry, this.encodes);
  }

  /** A record's entry size and charge, for the tail of a partial append. */
  sizeOf(record: ProducerRecord, withHeaders: boolean): { entry: number; charge: number } {
    const entry = this.sink.framing.entrySize(record, withHeaders);
    return { entry, charge: this.charge(entry) };
  }

  overhead(topic: string): number {
    if (topic !== this.lastTopic) {
      this.lastTopic = topic;
      this.lastOverhead = this.sink.framing.overhead(topic, this.traits.fixedPartition === true);
    }
    return this.lastOverhead;
  }

  partitionFor(topic: string, record: ProducerRecord): number | undefined {
    return this.partitioned ? (this.sink as PartitionedProduceSink).partitionFor(topic, record) : undefined;
  }

  newEntries(): EntryWriter | undefined {
    return this.encodes ? this.sink.entryWriter!() : undefined;
  }

  /** The request that carries `batch`, with at most `remainingMs` of its deadline; never throws (it rejects). */
  send(batch: ProducerBatch, remainingMs: number): Promise<BatchResult> {
    const options = { codec: this.traits.codec, timeoutMs: this.requestTimeout(remainingMs) };
    try {
      return this.request(batch, options);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * One record without headers goes as the single-record request (PRODUCE, or PRODUCE_IDEMPOTENT), which a
   * non-batching client would send for it and which is smaller than a batch frame; anything else as a batch.
   */
  private request(batch: ProducerBatch, options: { codec: AccumulatorTraits['codec']; timeoutMs: number | undefined }) {
    const sink = this.sink;
    const topic = batch.topic;
    if (this.partitioned && batch.partition !== undefined)
      return (sink as PartitionedProduceSink).sendPartitionBatch(topic, batch.partition, batch.records, options);
    const windowed = (sink.inFlightPerTopic ?? 1) > 1;
    if (batch.count === 1 && !batch.withHeaders && this.traits.fixedPartition !== true && !windowed)
      return sink.send(topic, batch.records[0]!, options).then((ack): BatchResult => ({ acks: [ack] }));
    if (!this.encodes) return sink.sendBatch(topic, batch.records, options);
    // A retry, or a tail, encodes its records again: the first frame took the entries' place.
    const writer = batch.takeEntries() ?? this.reencode(batch);
    const entries = {
      parts: writer.parts(),
      byteLength: writer.length,
      count: batch.count,
      withHeaders: batch.withHeaders,
    };
    return sink.sendEntries!(topic, entries, options);
  }

  private reencode(batch: ProducerBatch): EntryWriter {
    const writer = this.sink.entryWriter!();
    for (const record of batch.records) writer.append(record, batch.withHeaders);
    return writer;
  }

  /** A request never outlives its batch's deadline; without a configured timeout the connection's own applies. */
  private requestTimeout(remainingMs: number): number | undefined {
    const o = this.options;
    if (!o.requestTimeoutGiven && remainingMs >= o.requestTimeoutMs) return undefined;
    return Math.max(1, Math.min(o.requestTimeoutMs, Math.ceil(remainingMs)));
  }
}
