/**
 * The batch consumer (seed 003). One fetch connection reads every partition of the topics as the private cursor
 * group (group-offsets.ts) and hands each record to the worker that owns its partition (first seen, next worker
 * in turn), so a partition's records stay in order on one worker. Each worker accumulates independently
 * (accumulator.ts) and runs its batches through a BatchRunner. Finished records move their partition's watermark;
 * the watermarks are committed for the group every commitIntervalMs and on stop (or inside each invocation's
 * transaction when transactional). At-least-once: a crash re-delivers exactly the records after each partition's
 * committed watermark.
 *
 * The fetching itself (pipelined FETCHes, registration, the worker a partition goes to) is fetch-pump.ts.
 */
import { UsageError } from '../../../errors.js';
import type {
  Backend,
  BackendGroupFetcher,
  BackendIsolation,
  BackendProducer,
  BackendProducerOptions,
} from '../../backend.js';
import { validateTopicName } from '../../validate.js';
import { nextBatch, WorkerChannel } from './accumulator.js';
import { DEFAULT_BACKOFF, validateBackoff } from './backoff.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { systemClock, type Clock } from './clock.js';
import { DlqTopics } from './dead-letter.js';
import { FetchPump } from './fetch-pump.js';
import {
  CONTROL_PRODUCER_PREFIX,
  commitInTransaction,
  committedOffsets,
  cursorGroupOf,
  cursorMoves,
  fenceOlder,
  startPositions,
} from './group-offsets.js';
import { type BatchOutput, type OutputContext, type Pending, PlainOutput, TransactionalOutput } from './output.js';
import { TokenBucket } from './rate-limiter.js';
import { BatchRunner, type RunnerSettings } from './runner.js';
import type { BatchConsumerEvent, BatchConsumerOptions, BatchConsumerStats, BatchHandler } from './types.js';
import { Watermarks } from './watermark.js';

export const BatchDefaults = {
  maxSize: 100,
  timeoutMs: 5_000,
  workers: 1,
  commitIntervalMs: 5_000,
  attempts: 3,
  idleWaitMs: 50,
} as const;

/** What a batch consumer needs from its client (either backend: it is written once, against backend.ts). */
export interface BatchConsumerDeps {
  /** The client: DLQ topics and writes, group and topic metadata, the cursor group's start and deletion. */
  backend: Backend;
  /** A reader of its own (MoonMQ: a connection; Kafka: a group member) that fetches as `group`. */
  openFetcher(
    group: string,
    topics: readonly string[],
    isolation: BackendIsolation | undefined,
  ): Promise<BackendGroupFetcher>;
  producer(options: BackendProducerOptions): BackendProducer;
}

function positiveInt(name: string, v: number): number {
  if (!Number.isInteger(v) || v < 1) throw new UsageError(`${name} must be an integer > 0, got ${v}`);
  return v;
}

export class BatchConsumer<T = Buffer> implements AsyncDisposable {
  readonly group: string;
  readonly topics: readonly string[];
  readonly stats: BatchConsumerStats = {
    batches: 0,
    records: 0,
    processed: 0,
    filtered: 0,
    retries: 0,
    deadLettered: 0,
    discarded: 0,
    commits: 0,
  };
  private readonly cursorGroup: string;
  private readonly maxSize: number;
  private readonly timeoutMs: number;
  private readonly workers: number;
  private readonly clock: Clock;
  private readonly breaker: CircuitBreaker | undefined;
  private readonly bucket: TokenBucket | undefined;
  private readonly watermarks = new Watermarks();
  private readonly stopper = new AbortController();
  private channels: WorkerChannel<Pending>[] = [];
  private pump: FetchPump | undefined;
  private fetching = false;
  private control: BackendProducer | undefined;
  private committing: Promise<void> = Promise.resolve();
  private running: Promise<void> | undefined;
  private fatal: Error | undefined;

  /** Checks every option; the consumer does nothing until run(). */
  constructor(
    private readonly deps: BatchConsumerDeps,
    private readonly options: BatchConsumerOptions<T>,
    private readonly onClosed?: () => void,
  ) {
    this.group = options.group;
    this.topics = typeof options.topics === 'string' ? [options.topics] : [...options.topics];
    if (this.topics.length === 0) throw new UsageError('a batch consumer needs at least one topic');
    for (const t of this.topics) validateTopicName(t);
    this.cursorGroup = cursorGroupOf(options.group);
    this.maxSize = positiveInt('maxSize', options.maxSize ?? BatchDefaults.maxSize);
    this.timeoutMs = options.timeoutMs ?? BatchDefaults.timeoutMs;
    if (!(this.timeoutMs > 0) || !Number.isFinite(this.timeoutMs))
      throw new UsageError(`timeoutMs must be > 0, got ${this.timeoutMs}`);
    this.workers = positiveInt('workers', options.workers ?? BatchDefaults.workers);
    positiveInt('commitIntervalMs', options.commitIntervalMs ?? BatchDefaults.commitIntervalMs);
    const attempts = options.retry?.attempts ?? BatchDefaults.attempts;
    if (!Number.isInteger(attempts) || attempts < 0)
      throw new UsageError(`retry attempts must be an integer >= 0, got ${attempts}`);
    validateBackoff(options.retry?.backoff ?? DEFAULT_BACKOFF);
    this.clock = options.clock ?? systemClock;
    if (options.rateLimit) {
      if (options.rateLimit.burst < this.maxSize) {
        throw new UsageError(
          `rate limit burst ${options.rateLimit.burst} is below maxSize ${this.maxSize}: a full batch takes one permit per message, so it would always be rejected; make burst at least maxSize`,
        );
      }
      this.bucket = new TokenBucket(options.rateLimit, this.clock);
    }
    if (options.circuitBreaker)
      this.breaker = new CircuitBreaker(options.circuitBreaker, this.clock, (state) =>
        this.emit({ type: 'breaker', state }),
      );
  }

  /** Consumes until stop() (resolves) or a failure it cannot handle (rejects, after committing what finished). */
  run(handler: BatchHandler<T>): Promise<void> {
    if (this.running) return Promise.reject(new UsageError('run() was already called on this batch consumer'));
    if (this.stopper.signal.aborted) return Promise.reject(new UsageError('run() on a stopped batch consumer'));
    this.running = this.consume(handler);
    return this.running;
  }

  /** Stops fetching, lets running batches finish (their handlers see the abort signal), commits, and closes. */
  async stop(): Promise<void> {
    this.stopper.abort(new UsageError('the batch consumer is stopping'));
    this.pump?.wake();
    this.pump?.releaseWaiters();
    for (const c of this.channels) c.close();
    if (!this.running) this.onClosed?.();
    await this.running?.catch(() => {});
  }

  /** Records fetched and not finished yet (accumulating, in a handler, or waiting for a retry). */
  get inFlight(): number {
    return this.watermarks.outstanding();
  }

  /** The same as stop(). */
  close(): Promise<void> {
    return this.stop();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  private emit(event: BatchConsumerEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // A listener's failure must not break consumption.
    }
  }

  private fail(error: Error): void {
    if (!this.fatal) {
      this.fatal = error;
      this.emit({ type: 'error', error });
    }
    void this.stop();
  }

  private async consume(handler: BatchHandler<T>): Promise<void> {
    const outputs: BatchOutput[] = [];
    let fetcher: BackendGroupFetcher | undefined;
    try {
      fetcher = await this.start();
      if (this.stopper.signal.aborted) return;
      await this.runLoops(handler, fetcher, outputs);
      if (!this.options.transactional) {
        // Nothing is in flight now: one DESCRIBE_GROUP shows the cursors just past every registered record.
        if (this.watermarks.wantsCursors() && !fetcher.closed) this.watermarks.resolveTails(await fetcher.cursors());
        await this.commitNow();
      }
    } catch (error) {
      this.fatal ??= error as Error;
    } finally {
      await this.shutdown(outputs, fetcher);
    }
    if (this.fatal) throw this.fatal;
  }

  /**
   * Sets the cursor group to the group's committed offsets and opens the fetcher (on MoonMQ both at once: nothing
   * is fetched before the positions are set). Where the cursor group already starts there (a fresh group, no
   * leftovers of a crash) no transaction is needed; the control producer then fences an older instance in the
   * background, ahead of the first commit.
   */
  private async start(): Promise<BackendGroupFetcher> {
    const backend = this.deps.backend;
    const control = this.deps.producer({ producerName: CONTROL_PRODUCER_PREFIX + this.group });
    this.control = control;
    const open = (): Promise<BackendGroupFetcher> =>
      this.deps.openFetcher(this.cursorGroup, this.topics, this.options.isolation);
    if (backend.storeGroupOffsets) {
      // Kafka: a group's offsets can be altered only while it has no members, so the fetcher comes after.
      await backend.storeGroupOffsets(this.cursorGroup, await startPositions(backend, this.group, this.topics));
      return open();
    }
    const opening = open();
    try {
      const [positions, current] = await Promise.all([
        startPositions(backend, this.group, this.topics),
        committedOffsets(backend, this.cursorGroup),
      ]);
      const moves = cursorMoves(positions, current);
      if (moves.length > 0) await commitInTransaction(control, this.cursorGroup, moves);
      else
        this.committing = fenceOlder(control).catch((e: Error) => {
          if (!this.stopper.signal.aborted) this.fail(e);
        });
    } catch (error) {
      void opening.then((f) => f.close()).catch(() => {});
      throw error;
    }
    return opening;
  }

  /** The workers, the fetch pump and (unless transactional) the periodic commit, until they all end. */
  private async runLoops(
    handler: BatchHandler<T>,
    fetcher: BackendGroupFetcher,
    outputs: BatchOutput[],
  ): Promise<void> {
    const signal = this.stopper.signal;
    const backend = this.deps.backend;
    const ctx: OutputContext = {
      group: this.group,
      withHeaders: backend.supportsHeaders,
      dlqTopics: new DlqTopics(backend),
      now: () => Date.now(),
    };
    const settings = this.runnerSettings(handler);
    const loops: Promise<void>[] = [];
    for (let w = 0; w < this.workers; w++) {
      const output = this.options.transactional
        ? new TransactionalOutput(
            this.deps.producer({ producerName: `${CONTROL_PRODUCER_PREFIX}${this.group}.w${w}` }),
            ctx,
          )
        : new PlainOutput(backend, ctx);
      outputs.push(output);
      this.channels.push(new WorkerChannel<Pending>());
      loops.push(this.workerLoop(w, new BatchRunner(settings, w, output)).catch((e: Error) => this.fail(e)));
    }
    const pump = new FetchPump(
      {
        topics: this.topics,
        fetchMax: this.fetchMax,
        maxBuffered: this.maxBuffered,
        alwaysCursors: this.options.transactional === true,
        idleWaitMs: this.options.idleWaitMs ?? BatchDefaults.idleWaitMs,
      },
      this.watermarks,
      this.channels,
    );
    this.pump = pump;
    this.fetching = true;
    loops.push(
      pump
        .run(fetcher, signal)
        .catch((e: Error) => this.fail(e))
        .finally(() => (this.fetching = false)),
    );
    if (!this.options.transactional) loops.push(this.commitLoop(signal).catch((e: Error) => this.fail(e)));
    await Promise.all(loops);
  }

  /** Closes the outputs, the control producer and the fetcher at once; then drops the cursor group. */
  private async shutdown(outputs: readonly BatchOutput[], fetcher: BackendGroupFetcher | undefined): Promise<void> {
    await this.committing;
    await Promise.allSettled([
      ...outputs.map((o) => o.close()),
      this.control?.close(),
      fetcher?.close().then(() => this.deps.backend.deleteGroup(this.cursorGroup)),
    ]);
    this.onClosed?.();
  }

  private runnerSettings(handler: BatchHandler<T>): RunnerSettings<T> {
    const o = this.options;
    return {
      handler,
      deserialize: o.deserialize,
      filters: o.filters ?? [],
      validate: o.validate,
      onInvalid: o.onInvalid ?? 'dead-letter',
      attempts: o.retry?.attempts ?? BatchDefaults.attempts,
      backoff: o.retry?.backoff ?? DEFAULT_BACKOFF,
      onExhausted: o.retry?.onExhausted ?? 'dead-letter',
      breaker: this.breaker,
      bucket: this.bucket,
      clock: this.clock,
      random: o.random ?? Math.random,
      stats: this.stats,
      emit: (e) => this.emit(e),
    };
  }

  private async workerLoop(worker: number, runner: BatchRunner<T>): Promise<void> {
    const channel = this.channels[worker]!;
    const signal = this.stopper.signal;
    const accumulate = {
      maxSize: this.maxSize,
      timeoutMs: this.timeoutMs,
      clock: this.clock,
      onWait: (size: number, waitMs: number) => this.emit({ type: 'accumulating', worker, size, waitMs }),
    };
    for (;;) {
      const batch = await nextBatch(channel, accumulate);
      // A batch still accumulating when stop() came is left unfinished: the next run gets it again.
      if (batch.length === 0 || channel.isClosed) return;
      await runner.run(batch, signal);
      this.pump?.wake();
    }
  }

  private get maxBuffered(): number {
    return Math.max(2 * this.fetchMax, 2 * this.workers * this.maxSize);
  }

  private get fetchMax(): number {
    return this.options.fetchMaxRecords ?? Math.max(this.maxSize, 500);
  }

  private async commitLoop(signal: AbortSignal): Promise<void> {
    const interval = this.options.commitIntervalMs ?? BatchDefaults.commitIntervalMs;
    while (!signal.aborted) {
      try {
        await this.clock.sleep(interval, signal);
      } catch {
        return;
      }
      await this.commitNow();
    }
  }

  /** Commits every watermark that moved; one commit at a time. */
  commitNow(): Promise<void> {
    const run = this.committing.then(async () => {
      if (this.fetching && this.pump && this.watermarks.wantsCursors()) await this.pump.refreshCursors();
      const offsets = this.watermarks.pending();
      if (offsets.length === 0 || !this.control) return;
      await commitInTransaction(this.control, this.group, offsets);
      this.watermarks.markCommitted(offsets);
      this.stats.commits++;
      this.emit({ type: 'committed', offsets });
    });
    this.committing = run.catch(() => {});
    return run;
  }
}
