/**
 * The sending half of the record accumulator (accumulator.ts): sealed batches wait in per-key queues
 * (send-queues.ts) and go out while in-flight slots are free and the sink's socket takes bytes; each reply, error,
 * retry backoff and deadline ends in exactly one outcome per record (acked, failed or uncertain, retry-rule.ts), after
 * which the batch's buffer charge is released. The accumulator admits records and fills and seals batches; it hands
 * them over with `enqueue`.
 */
import { ConnectionError, DeliveryTimeoutError } from '../../errors.js';
import type { ResolvedAccumulatorOptions } from './accumulator-options.js';
import type { BufferPool } from './buffer-pool.js';
import type { ProducerBatch } from './producer-batch.js';
import type { MetricsRecorder } from './producer-metrics.js';
import { backoffMs, retryRule, tailRule } from './retry-rule.js';
import { SendQueues } from './send-queues.js';
import { type SinkAdapter, uncertainErrors } from './sink-adapter.js';
import type { BatchResult, ProduceSink } from './sink.js';

/** What the accumulator and its sender share: the open batch per key, and every batch not settled yet. */
export interface AccumulatorBooks {
  readonly open: Map<string, ProducerBatch>;
  readonly unsettled: Set<ProducerBatch>;
}

export class BatchSender {
  private readonly queues: SendQueues;
  private requestIds = 0;
  /** The sink's socket is backed up: nothing more is encoded until it drains. */
  private awaitingWrite = false;

  constructor(
    private readonly sink: ProduceSink,
    private readonly options: ResolvedAccumulatorOptions,
    private readonly adapter: SinkAdapter,
    private readonly recorder: MetricsRecorder,
    private readonly pool: BufferPool,
    private readonly books: AccumulatorBooks,
  ) {
    const max = options.maxInFlight;
    this.queues = new SendQueues(max, sink.idempotent ? () => Math.min(max, sink.inFlightPerTopic ?? 1) : () => max);
  }

  /** Requests outstanding now. */
  get inFlight(): number {
    return this.queues.inFlight;
  }

  /** Queues a sealed batch (state 'ready') behind its key's earlier batches and sends what the slots allow. */
  enqueue(batch: ProducerBatch): void {
    this.queues.push(batch);
    this.drain();
  }

  /** Sends queued batches while in-flight slots are free and the socket takes bytes, keeping each key's order. */
  drain(): void {
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
      this.books.unsettled.add(tail);
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
  expire(batch: ProducerBatch): void {
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

  fail(batch: ProducerBatch, error: Error): void {
    this.recorder.errors += batch.count;
    batch.failFrom(0, () => error);
    this.finish(batch);
  }

  /** The request may have landed: each record gets an UncertainDeliveryError (built as its promise settles). */
  uncertain(batch: ProducerBatch, why: string, cause?: Error): void {
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
    if (this.books.open.get(batch.key) === batch) this.books.open.delete(batch.key);
    if (batch.state === 'ready' || batch.state === 'backoff') this.queues.remove(batch);
    if (batch.state !== 'in-flight') batch.state = 'done';
    batch.markSettled();
    this.books.unsettled.delete(batch);
    if (!batch.inFlight) this.release(batch);
  }

  private release(batch: ProducerBatch): void {
    if (batch.released) return;
    batch.released = true;
    batch.state = 'done';
    this.pool.release(batch.chargedBytes, batch.count);
    batch.dropRecords();
  }
}
