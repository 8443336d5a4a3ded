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
 * left). retry-rule.ts decides which; retries back off inside the record's one delivery deadline. This file admits
 * records and fills and seals batches; batch-sender.ts sends them and settles their outcomes.
 */
import { DeliveryTimeoutError, UsageError } from '../../errors.js';
import type { ResolvedAccumulatorOptions } from './accumulator-options.js';
import { BufferPool } from './buffer-pool.js';
import { ProducerBatch } from './producer-batch.js';
import { MetricsRecorder, type ProducerMetrics } from './producer-metrics.js';
import { SendRun } from './send-many.js';
import { type AccumulatorTraits, hasHeaders, SinkAdapter } from './sink-adapter.js';
import type { ProduceAck, ProducerRecord, ProduceSink } from './sink.js';
import { BatchSender } from './batch-sender.js';

export { RECORD_OVERHEAD_BYTES, recordCharge, type AccumulatorTraits } from './sink-adapter.js';

/** Resolves once every record of `batch`, and of the tails its partial appends moved records to, has settled. */
async function settledWithTails(batch: ProducerBatch): Promise<void> {
  for (let b: ProducerBatch | undefined = batch; b; b = b.tail) await b.done;
}

export class RecordAccumulator {
  private readonly open = new Map<string, ProducerBatch>();
  private readonly sender: BatchSender;
  private readonly unsettled = new Set<ProducerBatch>();
  private readonly admissions = new Set<Promise<unknown>>();
  private readonly pool: BufferPool;
  private readonly recorder = new MetricsRecorder();
  private readonly adapter: SinkAdapter;
  private closing = false;

  constructor(
    sink: ProduceSink,
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
    this.adapter = new SinkAdapter(sink, options, traits);
    const books = { open: this.open, unsettled: this.unsettled };
    this.sender = new BatchSender(sink, options, this.adapter, this.recorder, this.pool, books);
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
    this.sender.drain();
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
      if (batch.state === 'in-flight') this.sender.uncertain(batch, 'the producer closed with its request in flight');
      else
        this.sender.fail(
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
    return this.recorder.snapshot(this.pool, this.sender.inFlight);
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
    batch.deadlineTimer = clock.setTimer(() => this.sender.expire(batch), this.options.deliveryTimeoutMs);
    return batch;
  }

  /** Closes an open batch to further records and queues it for sending. */
  private seal(batch: ProducerBatch): void {
    if (batch.state !== 'open') return;
    this.options.clock.clearTimer(batch.lingerTimer);
    if (this.open.get(batch.key) === batch) this.open.delete(batch.key);
    batch.state = 'ready';
    this.sender.enqueue(batch);
  }
}
