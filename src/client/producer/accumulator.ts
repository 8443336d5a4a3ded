/**
 * The record accumulator (seed 001): send() appends a record to the open batch of its topic (on the MoonMQ protocol
 * the broker partitions, so one batch per topic is one PRODUCE_BATCH; a PartitionedProduceSink gets one per
 * topic-partition), and a batch is sent when its frame reaches batchBytes or maxBatchRecords, when lingerMs passes,
 * or on flush(). Up to maxInFlight requests are outstanding (send-queues.ts); an idempotent sink gets one batch per
 * topic at a time, because the broker memoizes only the last batch of each (pid, topic): a second batch in flight
 * behind a lost one could not be deduplicated when resent.
 *
 * Every send() settles once: acked; failed (refused before any append, or never sent: a DeliveryTimeoutError when
 * the deadline or close came first); or uncertain (UncertainDeliveryError: the reply was lost after the request
 * left). retry-rule.ts decides which; retries back off inside the record's one delivery deadline.
 */
import { ConnectionError, DeliveryTimeoutError, UsageError } from '../../errors.js';
import type { ResolvedAccumulatorOptions } from './accumulator-options.js';
import { BufferPool } from './buffer-pool.js';
import { ProducerBatch } from './producer-batch.js';
import { MetricsRecorder, type ProducerMetrics } from './producer-metrics.js';
import { backoffMs, retryRule, tailRule } from './retry-rule.js';
import { SendQueues } from './send-queues.js';
import { SendRun } from './send-many.js';
import { type AccumulatorTraits, hasHeaders, SinkAdapter, uncertainErrors } from './sink-adapter.js';
import type { BatchResult, ProduceAck, ProducerRecord, ProduceSink } from './sink.js';

export { RECORD_OVERHEAD_BYTES, recordCharge, type AccumulatorTraits } from './sink-adapter.js';

/** Resolves once every record of `batch`, and of the tails its partial appends moved records to, has settled. */
async function settledWithTails(batch: ProducerBatch): Promise<void> {
  for (let b: ProducerBatch | undefined = batch; b; b = b.tail) await b.done;
}

export class RecordAccumulator {
  private readonly open = new Map<string, ProducerBatch>();
  private readonly queues: SendQueues;
  private readonly unsettled = new Set<ProducerBatch>();
  private readonly admissions = new Set<Promise<unknown>>();
  private readonly pool: BufferPool;
  private readonly recorder = new MetricsRecorder();
  private readonly adapter: SinkAdapter;
  private requestIds = 0;
  private closing = false;
  /** The sink's socket is backed up: nothing more is encoded until it drains. */
  private awaitingWrite = false;

  constructor(
    private readonly sink: ProduceSink,
    private readonly options: ResolvedAccumulatorOptions,
    traits: AccumulatorTraits,
  ) {
    this.pool = new BufferPool(
      options.bufferBytes,
      options.bufferRecords,
      options.onBufferFull,
      options.maxBlockMs,
      options.clock,
    );
    const max = options.maxInFlight;
    this.queues = new SendQueues(max, sink.idempotent ? () => Math.min(max, sink.inFlightPerTopic ?? 1) : () => max);
    this.adapter = new SinkAdapter(sink, options, traits);
  }

  send(topic: string, record: ProducerRecord): Promise<ProduceAck> {
    if (this.closing) return Promise.reject(new UsageError('send on a closed producer'));
    let entry: number;
    try {
      entry = this.adapter.checkRecord(topic, record, this.open.has(topic));
    } catch (error) {
      this.recorder.errors += 1;
      return Promise.reject(error);
    }
    const charged = this.adapter.charge(entry);
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
    return this.recorder.snapshot(this.pool, this.queues.inFlight);
  }

  /**
   * send() for `records` from `start` on, with one promise for all (send-many.ts): the records that fit in the buffer
   * now are appended in order, the first that does not fit and those after it are left to the caller.
   */
  sendMany(
    topic: string,
    records: readonly ProducerRecord[],
    start: number,
    onError?: (error: Error) => void,
  ): SendRun {
    if (this.closing) {
      return SendRun.refused(start, records.length - start, new UsageError('send on a closed producer'));
    }
    const run = new SendRun(start, onError);
    let batch: ProducerBatch | undefined;
    let first = 0;
    let i = start;
    for (; i < records.length; i++) {
      const record = records[i]!;
      let entry: number;
      try {
        entry = this.adapter.checkRecord(topic, record, this.open.has(topic));
      } catch (error) {
        this.recorder.errors += 1;
        // The records watched together must sit side by side in `records`: this one ends the stretch.
        if (batch) run.watch(batch, first, i - start - first);
        batch = undefined;
        run.fail(i - start, error as Error);
        continue;
      }
      const charged = this.adapter.charge(entry);
      if (!this.pool.tryReserve(charged)) break;
      const into = this.batchFor(topic, record, entry);
      if (into !== batch) {
        if (batch) run.watch(batch, first, i - start - first);
        batch = into;
        first = i - start;
      }
      into.addUnwatched(record, entry, charged);
      this.sealIfFull(into);
    }
    if (batch) run.watch(batch, first, i - start - first);
    run.seal(i - start);
    return run;
  }

  private append(topic: string, record: ProducerRecord, entry: number, charged: number): Promise<ProduceAck> {
    const batch = this.batchFor(topic, record, entry);
    const sent = batch.add(record, entry, charged);
    this.sealIfFull(batch);
    return sent;
  }

  /** The open batch `record` goes into: its key's, unless that one is full or differs in headers. */
  private batchFor(topic: string, record: ProducerRecord, entry: number): ProducerBatch {
    const headers = hasHeaders(record);
    const partition = this.adapter.partitionFor(topic, record);
    const key = partition === undefined ? topic : `${topic}\u0000${partition}`;
    const batch = this.open.get(key);
    const o = this.options;
    if (
      batch &&
      (batch.count >= o.maxBatchRecords || batch.frameBytes + entry > o.batchBytes || batch.withHeaders !== headers)
    ) {
      this.seal(batch);
      return this.openBatch(key, topic, partition, headers);
    }
    return batch ?? this.openBatch(key, topic, partition, headers);
  }

  private sealIfFull(batch: ProducerBatch): void {
    const o = this.options;
    if (batch.count >= o.maxBatchRecords || batch.frameBytes + 8 > o.batchBytes) this.seal(batch);
  }

  private openBatch(key: string, topic: string, partition: number | undefined, headers: boolean): ProducerBatch {
    const clock = this.options.clock;
    const now = clock.now();
    const batch = new ProducerBatch(
      key,
      topic,
      partition,
      headers,
      this.adapter.overhead(topic),
      now,
      now + this.options.deliveryTimeoutMs,
      this.adapter.newEntries(),
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
    this.queues.push(batch);
    this.drain();
  }

  /** Sends queued batches while in-flight slots are free and the socket takes bytes, keeping each key's order. */
  private drain(): void {
    if (this.awaitingWrite) return;
    const backlog = this.queues.empty ? undefined : this.sink.writable?.();
    if (backlog) {
      this.awaitingWrite = true;
      const resume = (): void => {
        this.awaitingWrite = false;
        this.drain();
      };
      backlog.then(resume, resume);
      return;
    }
    for (let batch = this.queues.take(); batch; batch = this.queues.take()) this.dispatch(batch);
  }

  /** Sends `batch`, which holds an in-flight slot (SendQueues.take). */
  private dispatch(batch: ProducerBatch): void {
    // A deadline timer can fire after the I/O callback that freed this slot: the deadline is checked here too.
    if (this.options.clock.now() >= batch.deadline) {
      this.queues.done(batch);
      this.expire(batch);
      return;
    }
    if (this.sink.canSend?.() === false) {
      this.queues.done(batch);
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
    this.adapter.send(batch, batch.deadline - now).then(
      (result) => this.onResult(batch, result),
      (error: unknown) => this.onError(batch, error as Error),
    );
  }

  /** The request of `batch` came back (or failed): frees its slot; true when its records still await an outcome. */
  private complete(batch: ProducerBatch): boolean {
    batch.inFlight = false;
    this.queues.done(batch);
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
      const tail = batch.splitTail(landed, this.adapter.overhead(batch.topic), (r) =>
        this.adapter.sizeOf(r, batch.withHeaders),
      );
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
    this.queues.unshift(batch);
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

  /** The request may have landed: each record gets an UncertainDeliveryError (built as its promise settles). */
  private uncertain(batch: ProducerBatch, why: string, cause?: Error): void {
    this.recorder.uncertain += batch.count;
    batch.failLazily(uncertainErrors(batch, why, cause));
    this.finish(batch);
  }

  /** Every record of `batch` has its outcome: stop its timers, take it out of every queue, free its buffer. */
  private finish(batch: ProducerBatch): void {
    const clock = this.options.clock;
    clock.clearTimer(batch.lingerTimer);
    clock.clearTimer(batch.deadlineTimer);
    clock.clearTimer(batch.backoffTimer);
    if (this.open.get(batch.key) === batch) this.open.delete(batch.key);
    if (batch.state === 'ready' || batch.state === 'backoff') this.queues.remove(batch);
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
