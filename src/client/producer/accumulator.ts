/**
 * The record accumulator (seed 001): send() appends a record to the open batch of its topic (on the MoonMQ protocol
 * the broker partitions, so one batch per topic is one PRODUCE_BATCH; a PartitionedProduceSink gets one per
 * topic-partition), and a batch is sent when its frame reaches batchBytes or maxBatchRecords, when lingerMs passes,
 * or on flush(). Up to maxInFlight requests are outstanding; an idempotent sink gets one batch per topic at a time,
 * because the broker memoizes only the last batch of each (pid, topic): a second batch in flight behind a lost one
 * could not be deduplicated when resent.
 *
 * Every send() settles once: acked; failed (refused before any append, or never sent: a DeliveryTimeoutError when
 * the deadline or close came first); or uncertain (UncertainDeliveryError: the reply was lost after the request
 * left). retry-rule.ts decides which; retries back off inside the record's one delivery deadline.
 */
import {
  ConnectionError,
  DeliveryTimeoutError,
  type DeliveryRequest,
  UncertainDeliveryError,
  UsageError,
} from '../../errors.js';
import { Caps } from '../../protocol/limits.js';
import type { CodecId, CodecName } from '../../protocol/opcodes.js';
import { validateHeaders, validateTopicName } from '../validate.js';
import type { ResolvedAccumulatorOptions } from './accumulator-options.js';
import { BufferPool } from './buffer-pool.js';
import { ProducerBatch } from './producer-batch.js';
import { MetricsRecorder, type ProducerMetrics } from './producer-metrics.js';
import { backoffMs, retryRule, tailRule } from './retry-rule.js';
import {
  type BatchFraming,
  type BatchResult,
  type EntryWriter,
  isPartitionedSink,
  type PartitionedProduceSink,
  type ProduceAck,
  type ProducerRecord,
  type ProduceSink,
  type SendOptions,
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

function hasHeaders(record: ProducerRecord): boolean {
  return record.headers !== undefined && record.headers.length > 0;
}

/** Resolves once every record of `batch`, and of the tails its partial appends moved records to, has settled. */
async function settledWithTails(batch: ProducerBatch): Promise<void> {
  for (let b: ProducerBatch | undefined = batch; b; b = b.tail) await b.done;
}

export class RecordAccumulator {
  private readonly open = new Map<string, ProducerBatch>();
  /** Sealed batches per key, in send order; a batch waiting to be retried sits at the head of its queue. */
  private readonly queues = new Map<string, ProducerBatch[]>();
  private readonly inFlightByKey = new Map<string, number>();
  private readonly unsettled = new Set<ProducerBatch>();
  private readonly admissions = new Set<Promise<unknown>>();
  private readonly pool: BufferPool;
  private readonly recorder = new MetricsRecorder();
  private readonly perKeyInFlight: number;
  private inFlight = 0;
  private requestIds = 0;
  private closing = false;
  /** The sink's socket is backed up: nothing more is encoded until it drains. */
  private awaitingWrite = false;
  private readonly partitioned: boolean;
  private readonly framing: BatchFraming;
  /** The sink takes entries encoded at append (sendEntries): each record is encoded once. */
  private readonly encodes: boolean;
  private lastTopic = '';
  private lastOverhead = 0;

  constructor(
    private readonly sink: ProduceSink,
    private readonly options: ResolvedAccumulatorOptions,
    private readonly traits: AccumulatorTraits,
  ) {
    this.pool = new BufferPool(
      options.bufferBytes,
      options.bufferRecords,
      options.onBufferFull,
      options.maxBlockMs,
      options.clock,
    );
    this.perKeyInFlight = sink.idempotent ? 1 : options.maxInFlight;
    this.partitioned = isPartitionedSink(sink);
    this.framing = sink.framing;
    this.encodes = !this.partitioned && sink.sendEntries !== undefined && sink.entryWriter !== undefined;
  }

  send(topic: string, record: ProducerRecord): Promise<ProduceAck> {
    if (this.closing) return Promise.reject(new UsageError('send on a closed producer'));
    let entry: number;
    try {
      entry = this.checkRecord(topic, record);
    } catch (error) {
      this.recorder.errors += 1;
      return Promise.reject(error);
    }
    const charged = this.charge(entry);
    if (this.pool.tryReserve(charged)) return this.append(topic, record, entry, charged);
    const admitted = this.pool.wait(charged).then(
      () => {
        if (!this.closing) return this.append(topic, record, entry, charged);
        this.pool.release(charged, 1);
        throw new DeliveryTimeoutError(
          'closing',
          'the producer closed before the record was admitted; it was not sent',
        );
      },
      (error: Error) => {
        this.recorder.errors += 1;
        throw error;
      },
    );
    this.admissions.add(admitted);
    void admitted.then(
      () => this.admissions.delete(admitted),
      () => this.admissions.delete(admitted),
    );
    return admitted;
  }

  /** Sends every open batch now and resolves when everything accepted before the call has settled. */
  async flush(): Promise<void> {
    const admissions = [...this.admissions];
    await Promise.allSettled(admissions);
    for (const batch of [...this.open.values()]) this.seal(batch);
    this.drain();
    await Promise.all([...this.unsettled].map((b) => settledWithTails(b)));
  }

  /**
   * Stops admission, sends what is open and waits up to `drainMs` for everything to settle; then fails what never
   * left (DeliveryTimeoutError) and reports what is still in flight as uncertain. Nothing is dropped silently.
   */
  async close(drainMs = Number.POSITIVE_INFINITY): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.pool.rejectWaiters(
      new DeliveryTimeoutError('closing', 'the producer closed before the record was admitted; it was not sent'),
    );
    const clock = this.options.clock;
    let timer: unknown;
    const drained = this.flush();
    if (Number.isFinite(drainMs)) {
      await Promise.race([
        drained,
        new Promise<void>((resolve) => (timer = clock.setTimer(resolve, Math.max(0, drainMs)))),
      ]);
      clock.clearTimer(timer);
    } else {
      await drained;
    }
    for (const batch of [...this.unsettled]) {
      if (batch.state === 'in-flight') this.uncertain(batch, 'the producer closed with its request in flight');
      else
        this.fail(
          batch,
          new DeliveryTimeoutError(
            'closing',
            `the producer closed after ${drainMs} ms of draining; ${batch.count} records were not sent`,
            { cause: batch.lastError },
          ),
        );
    }
  }

  get bufferAvailableBytes(): number {
    return this.pool.availableBytes;
  }

  metrics(): ProducerMetrics {
    return this.recorder.snapshot(this.pool, this.inFlight);
  }

  /** Validates one record and returns its PRODUCE_BATCH entry size; throws UsageError for what no batch can carry. */
  private checkRecord(topic: string, record: ProducerRecord): number {
    if (!this.open.has(topic)) validateTopicName(topic);
    const keyBytes = byteLength(record.key);
    const valueBytes = byteLength(record.value);
    if (keyBytes > Caps.default)
      throw new UsageError(`key is ${keyBytes} bytes, over the cap of ${Caps.default}; not sent`);
    if (valueBytes > Caps.default)
      throw new UsageError(`value is ${valueBytes} bytes, over the cap of ${Caps.default}; not sent`);
    let entry = 8 + keyBytes + valueBytes;
    if (hasHeaders(record)) {
      validateHeaders('headers', record.headers!);
      entry = this.framing.entrySize(record, true);
    }
    const frame = this.overhead(topic) + entry;
    if (frame > this.options.maxFrameBytes) {
      throw new UsageError(
        `record needs a ${frame}-byte frame, over the ${this.options.maxFrameBytes}-byte limit; not sent`,
      );
    }
    return entry;
  }

  private charge(entry: number): number {
    return recordCharge(entry, this.encodes);
  }

  private overhead(topic: string): number {
    if (topic !== this.lastTopic) {
      this.lastTopic = topic;
      this.lastOverhead = this.framing.overhead(topic, this.traits.fixedPartition === true);
    }
    return this.lastOverhead;
  }

  private append(topic: string, record: ProducerRecord, entry: number, charged: number): Promise<ProduceAck> {
    const headers = hasHeaders(record);
    const partition = this.partitioned ? (this.sink as PartitionedProduceSink).partitionFor(topic, record) : undefined;
    const key = partition === undefined ? topic : `${topic}\u0000${partition}`;
    let batch = this.open.get(key);
    const o = this.options;
    if (
      batch &&
      (batch.count >= o.maxBatchRecords || batch.frameBytes + entry > o.batchBytes || batch.withHeaders !== headers)
    ) {
      this.seal(batch);
      batch = undefined;
    }
    batch ??= this.openBatch(key, topic, partition, headers);
    const sent = batch.add(record, entry, charged);
    if (batch.count >= o.maxBatchRecords || batch.frameBytes + 8 > o.batchBytes) this.seal(batch);
    return sent;
  }

  private openBatch(key: string, topic: string, partition: number | undefined, headers: boolean): ProducerBatch {
    const clock = this.options.clock;
    const now = clock.now();
    const batch = new ProducerBatch(
      key,
      topic,
      partition,
      headers,
      this.overhead(topic),
      now,
      now + this.options.deliveryTimeoutMs,
      this.encodes ? this.sink.entryWriter!() : undefined,
    );
    this.open.set(key, batch);
    this.unsettled.add(batch);
    batch.lingerTimer = clock.setTimer(() => this.seal(batch), this.options.lingerMs);
    batch.deadlineTimer = clock.setTimer(() => this.expire(batch), this.options.deliveryTimeoutMs);
    return batch;
  }

  /** Closes an open batch to further records and queues it for sending. */
  private seal(batch: ProducerBatch): void {
    if (batch.state !== 'open') return;
    this.options.clock.clearTimer(batch.lingerTimer);
    if (this.open.get(batch.key) === batch) this.open.delete(batch.key);
    batch.state = 'ready';
    this.queueOf(batch.key).push(batch);
    this.drain();
  }

  private queueOf(key: string): ProducerBatch[] {
    let queue = this.queues.get(key);
    if (!queue) this.queues.set(key, (queue = []));
    return queue;
  }

  /** Sends queued batches while in-flight slots are free and the socket takes bytes, keeping each key's order. */
  private drain(): void {
    if (this.awaitingWrite) return;
    const backlog = this.queues.size > 0 ? this.sink.writable?.() : undefined;
    if (backlog) {
      this.awaitingWrite = true;
      const resume = (): void => {
        this.awaitingWrite = false;
        this.drain();
      };
      backlog.then(resume, resume);
      return;
    }
    for (const [key, queue] of this.queues) {
      while (this.inFlight < this.options.maxInFlight && queue.length > 0) {
        const head = queue[0]!;
        if (head.state !== 'ready' || (this.inFlightByKey.get(key) ?? 0) >= this.perKeyInFlight) break;
        queue.shift();
        this.dispatch(head);
      }
      if (queue.length === 0) this.queues.delete(key);
      if (this.inFlight >= this.options.maxInFlight) return;
    }
  }

  private dispatch(batch: ProducerBatch): void {
    // A deadline timer can fire after the I/O callback that freed this slot: the deadline is checked here too.
    if (this.options.clock.now() >= batch.deadline) {
      this.expire(batch);
      return;
    }
    if (this.sink.canSend?.() === false) {
      this.fail(
        batch,
        new ConnectionError(
          `the producer's connection is closed; ${batch.count} records to ${batch.topic} were not sent`,
        ),
      );
      return;
    }
    const now = this.options.clock.now();
    batch.attempts += 1;
    if (batch.attempts === 1) this.recorder.recordBatch(now - batch.createdAt, batch.frameBytes, batch.count);
    else this.recorder.retries += batch.count;
    this.recorder.recordRequest(batch.count);
    batch.request = {
      requestId: ++this.requestIds,
      topic: batch.topic,
      attempt: batch.attempts,
      records: batch.count,
      position: 0,
      sentAtMs: now,
    };
    batch.state = 'in-flight';
    batch.inFlight = true;
    this.inFlight += 1;
    this.inFlightByKey.set(batch.key, (this.inFlightByKey.get(batch.key) ?? 0) + 1);
    const options = { codec: this.traits.codec, timeoutMs: this.requestTimeout(batch.deadline - now) };
    let sent: Promise<BatchResult>;
    try {
      sent = this.request(batch, options);
    } catch (error) {
      sent = Promise.reject(error);
    }
    sent.then(
      (result) => this.onResult(batch, result),
      (error: unknown) => this.onError(batch, error as Error),
    );
  }

  /**
   * One record without headers goes as the single-record request (PRODUCE, or PRODUCE_IDEMPOTENT), which a
   * non-batching client would send for it and which is smaller than a batch frame; anything else as a batch.
   */
  private request(batch: ProducerBatch, options: SendOptions): Promise<BatchResult> {
    if (this.partitioned && batch.partition !== undefined) {
      return (this.sink as PartitionedProduceSink).sendPartitionBatch(
        batch.topic,
        batch.partition,
        batch.records,
        options,
      );
    }
    if (batch.count === 1 && !batch.withHeaders && this.traits.fixedPartition !== true)
      return this.sink.send(batch.topic, batch.records[0]!, options).then((ack) => ({ acks: [ack] }));
    if (!this.encodes) return this.sink.sendBatch(batch.topic, batch.records, options);
    // A retry after a reply, or a tail, encodes its records again: the first frame took the entries' place.
    const writer = batch.takeEntries() ?? this.reencode(batch);
    const entries = {
      parts: writer.parts(),
      byteLength: writer.length,
      count: batch.count,
      withHeaders: batch.withHeaders,
    };
    return this.sink.sendEntries!(batch.topic, entries, options);
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

  /** The request of `batch` came back (or failed): frees its slot; true when its records still await an outcome. */
  private complete(batch: ProducerBatch): boolean {
    batch.inFlight = false;
    this.inFlight -= 1;
    const n = (this.inFlightByKey.get(batch.key) ?? 1) - 1;
    if (n === 0) this.inFlightByKey.delete(batch.key);
    else this.inFlightByKey.set(batch.key, n);
    if (!batch.settled) return true;
    this.release(batch);
    this.drain();
    return false;
  }

  private onResult(batch: ProducerBatch, result: BatchResult): void {
    if (!this.complete(batch)) return;
    const landed = result.acks.length;
    // A batch whose every record landed is acked even with an error (ERR 7: the memo, not the data, failed to persist).
    if (result.error === undefined || landed >= batch.count) {
      batch.ackPrefix(result.acks);
      this.finish(batch);
    } else {
      const tail = batch.splitTail(landed, this.overhead(batch.topic), (r) => {
        const entry = this.framing.entrySize(r, batch.withHeaders);
        return { entry, charge: this.charge(entry) };
      });
      batch.ackPrefix(result.acks);
      this.finish(batch);
      this.unsettled.add(tail);
      tail.deadlineTimer = this.options.clock.setTimer(
        () => this.expire(tail),
        Math.max(0, tail.deadline - this.options.clock.now()),
      );
      if (tailRule(result.error) === 'retry') this.retry(tail, result.error);
      else this.fail(tail, result.error);
    }
    this.drain();
  }

  private onError(batch: ProducerBatch, error: Error): void {
    if (!this.complete(batch)) return;
    const rule = retryRule(error);
    if (rule === 'retry') this.retry(batch, error);
    else if (rule === 'unknown') this.uncertain(batch, 'the reply was lost', error);
    else this.fail(batch, error);
    this.drain();
  }

  /** Puts `batch` back at the head of its queue after a jittered backoff, if that fits in its deadline. */
  private retry(batch: ProducerBatch, error: Error): void {
    batch.lastError = error;
    const clock = this.options.clock;
    const wait = backoffMs(batch.attempts, this.options.random);
    if (clock.now() + wait >= batch.deadline) {
      const message = `retry ${batch.attempts} of ${batch.count} records to ${batch.topic} would start after the ${this.options.deliveryTimeoutMs} ms delivery deadline; not written`;
      this.fail(batch, new DeliveryTimeoutError('retrying', message, { cause: error }));
      return;
    }
    batch.state = 'backoff';
    this.queueOf(batch.key).unshift(batch);
    batch.backoffTimer = clock.setTimer(() => {
      if (batch.state !== 'backoff') return;
      batch.state = 'ready';
      this.drain();
    }, wait);
  }

  /** The delivery deadline of `batch` passed before its outcome was known. */
  private expire(batch: ProducerBatch): void {
    if (batch.settled) return;
    if (batch.state === 'in-flight') {
      this.uncertain(
        batch,
        `the ${this.options.deliveryTimeoutMs} ms delivery deadline passed with its request in flight`,
      );
      return;
    }
    const phase = batch.attempts === 0 ? 'queued' : 'retrying';
    const message = `the ${this.options.deliveryTimeoutMs} ms delivery deadline passed before ${batch.count} records to ${batch.topic} could be sent; not written`;
    this.fail(batch, new DeliveryTimeoutError(phase, message, { cause: batch.lastError }));
  }

  private fail(batch: ProducerBatch, error: Error): void {
    this.recorder.errors += batch.count;
    batch.failFrom(0, () => error);
    this.finish(batch);
  }

  /**
   * One UncertainDeliveryError per record (each carries its record), built as each record's promise settles rather
   * than all at once, so a batch of 10,000 does not hold 10,000 errors at the moment the broker is gone. They have
   * no stack trace: it would only show a timer or socket callback, and capturing thousands stalls the event loop
   * that has to fire the next deadlines.
   */
  private uncertain(batch: ProducerBatch, why: string, cause?: Error): void {
    this.recorder.uncertain += batch.count;
    const request = batch.request!;
    const records = batch.records;
    batch.failLazily((i) => {
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      try {
        const at: DeliveryRequest = { ...request, position: i };
        return new UncertainDeliveryError(records[i], at, why, { cause });
      } finally {
        Error.stackTraceLimit = limit;
      }
    });
    this.finish(batch);
  }

  /** Every record of `batch` has its outcome: stop its timers, take it out of every queue, free its buffer. */
  private finish(batch: ProducerBatch): void {
    const clock = this.options.clock;
    clock.clearTimer(batch.lingerTimer);
    clock.clearTimer(batch.deadlineTimer);
    clock.clearTimer(batch.backoffTimer);
    if (this.open.get(batch.key) === batch) this.open.delete(batch.key);
    if (batch.state === 'ready' || batch.state === 'backoff') {
      const queue = this.queues.get(batch.key);
      const i = queue?.indexOf(batch) ?? -1;
      if (i >= 0) queue!.splice(i, 1);
    }
    if (batch.state !== 'in-flight') batch.state = 'done';
    batch.markSettled();
    this.unsettled.delete(batch);
    if (!batch.inFlight) this.release(batch);
  }

  private release(batch: ProducerBatch): void {
    if (batch.released) return;
    batch.released = true;
    batch.state = 'done';
    this.pool.release(batch.chargedBytes, batch.count);
  }
}
