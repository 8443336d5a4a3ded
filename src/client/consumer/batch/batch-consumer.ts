/**
 * The batch consumer (seed 003). One fetch connection reads every partition of the topics as the private cursor
 * group (group-offsets.ts) and hands each record to the worker that owns its partition (first seen, next worker
 * in turn), so a partition's records stay in order on one worker. Each worker accumulates independently
 * (accumulator.ts) and runs its batches through a BatchRunner. Finished records move their partition's watermark;
 * the watermarks are committed for the group every commitIntervalMs and on stop (or inside each invocation's
 * transaction when transactional). At-least-once: a crash re-delivers exactly the records after each partition's
 * committed watermark.
 *
 * The fetch loop stops reading while maxBuffered records are registered and unfinished, so a slow handler bounds
 * memory rather than the broker's backlog.
 */
import { UsageError } from '../../../errors.js';
import type { FetchedRecord } from '../../../protocol/messages/fetch.js';
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
import { CONTROL_PRODUCER_PREFIX, commitInTransaction, cursorGroupOf, startPositions } from './group-offsets.js';
import { type BatchOutput, type OutputContext, type Pending, PlainOutput, TransactionalOutput } from './output.js';
import { TokenBucket } from './rate-limiter.js';
import { BatchRunner, type RunnerSettings } from './runner.js';
import type { BatchConsumerEvent, BatchConsumerOptions, BatchConsumerStats, BatchHandler } from './types.js';
import { partitionKey, Watermarks } from './watermark.js';

/** FETCHes kept in flight on the fetch connection. */
const FETCH_DEPTH = 2;

interface FetchReply {
  records: FetchedRecord[];
  cursors: ReadonlyArray<{ topic: string; partition: number; offset: bigint }> | undefined;
  /** Commits waiting for this reply's cursors. */
  waiters: Array<() => void>;
}

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
  private readonly affinity = new Map<string, number>();
  private wakeFetch: (() => void) | undefined;
  private readonly cursorWaiters: Array<() => void> = [];
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
    this.wakeFetch?.();
    for (const w of this.cursorWaiters.splice(0)) w();
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
    const signal = this.stopper.signal;
    const outputs: BatchOutput[] = [];
    let fetcher: BackendGroupFetcher | undefined;
    const backend = this.deps.backend;
    try {
      this.control = this.deps.producer({ producerName: CONTROL_PRODUCER_PREFIX + this.group });
      const positions = await startPositions(backend, this.group, this.topics);
      if (backend.storeGroupOffsets) await backend.storeGroupOffsets(this.cursorGroup, positions);
      else await commitInTransaction(this.control, this.cursorGroup, positions);
      if (signal.aborted) return;
      fetcher = await this.deps.openFetcher(this.cursorGroup, this.topics, this.options.isolation);
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
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the signal can abort during the awaits above; TypeScript keeps the narrowing across them (TypeScript#9998)
      if (signal.aborted) for (const c of this.channels) c.close();
      this.fetching = true;
      loops.push(
        this.fetchLoop(fetcher, signal)
          .catch((e: Error) => this.fail(e))
          .finally(() => (this.fetching = false)),
      );
      if (!this.options.transactional) loops.push(this.commitLoop(signal).catch((e: Error) => this.fail(e)));
      await Promise.all(loops);
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

  private async shutdown(outputs: readonly BatchOutput[], fetcher: BackendGroupFetcher | undefined): Promise<void> {
    await Promise.allSettled(outputs.map((o) => o.close()));
    await this.control?.close().catch(() => {});
    if (fetcher) {
      await fetcher.close().catch(() => {});
      await this.deps.backend.deleteGroup(this.cursorGroup).catch(() => {});
    }
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
      this.wakeFetch?.();
    }
  }

  private get maxBuffered(): number {
    return Math.max(2 * this.fetchMax, 2 * this.workers * this.maxSize);
  }

  private get fetchMax(): number {
    return this.options.fetchMaxRecords ?? Math.max(this.maxSize, 500);
  }

  /**
   * FETCH_DEPTH fetches stay in flight on the one connection, so the broker prepares the next reply while this
   * process hands out the last one. Replies come back in request order and a partition's records arrive in offset
   * order across them, so registering them in that order keeps each partition ordered. A FETCH is followed by a
   * DESCRIBE_GROUP of the cursor group when a commit is waiting for cursors (always when transactional: each batch
   * commits its exact offsets): the broker handles it right after that FETCH, so it shows each partition's offset
   * just past everything delivered so far.
   */
  private async fetchLoop(fetcher: BackendGroupFetcher, signal: AbortSignal): Promise<void> {
    let issued = 0;
    const inFlight: Array<Promise<FetchReply>> = [];
    const issue = (): void => {
      const topic = this.topics[Math.min(issued++, this.topics.length - 1)]!;
      const waiters = this.cursorWaiters.splice(0);
      const withCursors = waiters.length > 0 || this.options.transactional === true;
      const reply = fetcher.fetch(topic, { maxRecords: this.fetchMax, withCursors });
      inFlight.push(reply.then((f) => ({ records: f.records, cursors: f.cursors, waiters })));
    };
    const take = async (dispatch: boolean): Promise<number> => {
      const reply = await inFlight.shift()!;
      this.register(reply.records, reply.cursors, dispatch);
      for (const w of reply.waiters) w();
      return reply.records.length;
    };
    try {
      while (!signal.aborted) {
        const room = this.watermarks.outstanding() < this.maxBuffered;
        while (inFlight.length < FETCH_DEPTH && (room || this.cursorWaiters.length > 0)) issue();
        if (inFlight.length === 0) {
          await this.fetchWait(undefined, signal);
          continue;
        }
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the signal can abort during `take`; TypeScript keeps the narrowing across awaits (TypeScript#9998)
        if ((await take(!signal.aborted)) > 0 || signal.aborted) continue;
        // Caught up: take what is still in flight, then wait before polling again (unless that found records).
        let found = 0;
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the signal can abort during `take`; TypeScript keeps the narrowing across awaits (TypeScript#9998)
        while (inFlight.length > 0 && !signal.aborted) found += await take(true);
        if (found === 0 && issued >= this.topics.length)
          await this.fetchWait(this.options.idleWaitMs ?? BatchDefaults.idleWaitMs, signal);
      }
    } finally {
      // Replies already on their way moved the cursor group past their records: register them (unfinished) so the
      // final commit stops before them.
      while (inFlight.length > 0) await take(false).catch(() => 0);
    }
  }

  /** Waits up to `ms` (or until woken: a finished batch, a commit wanting cursors, stop). */
  private fetchWait(ms: number | undefined, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.wakeFetch = undefined;
        resolve();
      };
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      this.wakeFetch = done;
    });
  }

  /** Resolves once a DESCRIBE_GROUP after the next FETCH has resolved the partitions' unknown tails. */
  private refreshCursors(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.cursorWaiters.push(resolve);
      this.wakeFetch?.();
    });
  }

  private register(
    records: readonly FetchedRecord[],
    cursors: ReadonlyArray<{ topic: string; partition: number; offset: bigint }> | undefined,
    dispatch: boolean,
  ): void {
    const perWorker: Pending[][] = this.channels.map(() => []);
    let i = 0;
    while (i < records.length) {
      const first = records[i]!;
      const key = partitionKey(first.topic, first.partition);
      const mark = this.watermarks.of(first.topic, first.partition);
      const into = perWorker[this.workerFor(key)]!;
      let j = i;
      while (j < records.length && records[j]!.partition === first.partition && records[j]!.topic === first.topic) j++;
      for (let k = i; k < j; k++) {
        const record = records[k]!;
        const next = k + 1 < j ? records[k + 1]!.offset : undefined;
        const pending: Pending = {
          offset: record.offset,
          next,
          done: false,
          record,
          mark,
          item: undefined,
          lastError: undefined,
        };
        into.push(pending);
        mark.add(pending);
      }
      i = j;
    }
    if (cursors) this.watermarks.resolveTails(cursors);
    if (!dispatch) return;
    for (let w = 0; w < perWorker.length; w++) if (perWorker[w]!.length > 0) this.channels[w]!.push(perWorker[w]!);
  }

  private workerFor(key: string): number {
    let w = this.affinity.get(key);
    if (w === undefined) this.affinity.set(key, (w = this.affinity.size % this.workers));
    return w;
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
      if (this.fetching && this.watermarks.wantsCursors()) await this.refreshCursors();
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
