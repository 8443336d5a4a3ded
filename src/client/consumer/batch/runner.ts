/**
 * One accumulated batch from records to finished items: per-item deserialisation, filters and validation; then
 * invocations of the handler until nothing is left to retry. A throwing handler gets the whole (reduced) batch
 * again after the backoff; per-item results retry or dead-letter only the items they name. Once retries are
 * exhausted each remaining item is dead-lettered or discarded separately. Every invocation passes the circuit
 * breaker and takes one rate-limit permit per item first.
 */
import type { FetchedRecord } from '../../../protocol/messages/fetch.js';
import { backoffDelay, type Backoff } from './backoff.js';
import type { CircuitBreaker } from './circuit-breaker.js';
import type { Clock } from './clock.js';
import type { BatchOutput, DeadPending, Pending } from './output.js';
import type { TokenBucket } from './rate-limiter.js';
import {
  type BatchConsumerEvent,
  type BatchConsumerStats,
  type BatchHandler,
  type BatchItem,
  type InvalidAction,
  type ItemResult,
  MessageBatch,
  type TransportContext,
} from './types.js';
import { RecordTransport, ValueItem } from './transport.js';

export interface RunnerSettings<T> {
  handler: BatchHandler<T>;
  deserialize: ((value: Buffer, transport: TransportContext) => T) | undefined;
  filters: readonly ((item: BatchItem<T>) => boolean)[];
  validate: ((item: BatchItem<T>) => boolean | string | undefined) | undefined;
  onInvalid: InvalidAction;
  attempts: number;
  backoff: Backoff;
  onExhausted: InvalidAction;
  breaker: CircuitBreaker | undefined;
  bucket: TokenBucket | undefined;
  clock: Clock;
  random: () => number;
  stats: BatchConsumerStats;
  emit: (event: BatchConsumerEvent) => void;
}

/** An admitted record: its pending entry, whose `item` is set. */
type Live = Pending;

function transportOf(r: FetchedRecord, deliveryAttempt: number): TransportContext {
  return new RecordTransport(r, deliveryAttempt);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class BatchRunner<T> {
  constructor(
    private readonly s: RunnerSettings<T>,
    private readonly worker: number,
    private readonly output: BatchOutput,
  ) {}

  /** Runs `records` to the end; stops early (leaving items unfinished, so they are redelivered) when `signal` aborts. */
  async run(records: readonly Pending[], signal: AbortSignal): Promise<void> {
    const s = this.s;
    s.stats.batches++;
    s.stats.records += records.length;
    const { live, done, dead } = this.admit(records);
    if (live.length === 0) {
      if (done.length > 0 || dead.length > 0) await this.output.complete(done, dead);
      return;
    }
    await this.invokeUntilDone(live, done, dead, signal);
  }

  private admit(records: readonly Pending[]): { live: Live[]; done: Pending[]; dead: DeadPending[] } {
    const s = this.s;
    const filters = s.filters;
    if (!s.deserialize && filters.length === 0 && !s.validate) {
      // Nothing can refuse an item: every record is live, its message the value bytes.
      const live = new Array<Live>(records.length);
      for (let i = 0; i < records.length; i++) {
        const pending = records[i]!;
        pending.item = new ValueItem(pending.record, 1);
        live[i] = pending;
      }
      return { live, done: [], dead: [] };
    }
    const live: Live[] = [];
    const done: Pending[] = [];
    const dead: DeadPending[] = [];
    const invalid = (pending: Pending, transport: TransportContext, reason: string): void => {
      if (s.onInvalid === 'dead-letter') dead.push({ pending, transport, reason, attempts: 0 });
      else this.discard(pending, transport, reason, done);
    };
    for (const pending of records) {
      const transport = transportOf(pending.record, 1);
      let message: T;
      try {
        message = s.deserialize ? s.deserialize(transport.value, transport) : (transport.value as T);
      } catch (error) {
        invalid(pending, transport, `deserialize: ${errorText(error)}`);
        continue;
      }
      const item: BatchItem<T> = { message, transport };
      if (filters.length > 0 && !filters.every((f) => f(item))) {
        s.stats.filtered++;
        done.push(pending);
        continue;
      }
      const verdict = s.validate?.(item);
      if (verdict === false || typeof verdict === 'string') {
        invalid(pending, transport, typeof verdict === 'string' ? verdict : 'validation failed');
        continue;
      }
      pending.item = item;
      live.push(pending);
    }
    this.countDead(dead);
    return { live, done, dead };
  }

  private discard(pending: Pending, t: TransportContext, reason: string, done: Pending[]): void {
    this.s.stats.discarded++;
    this.s.emit({ type: 'discarded', topic: t.topic, partition: t.partition, offset: t.offset, reason });
    done.push(pending);
  }

  private async invokeUntilDone(
    live: Live[],
    done: Pending[],
    dead: DeadPending[],
    signal: AbortSignal,
  ): Promise<void> {
    const s = this.s;
    let attempt = 0;
    for (;;) {
      if (signal.aborted) return this.settleCarry(done, dead);
      const outcome = await this.invoke(live, attempt, done, dead, signal);
      done = [];
      dead = [];
      if (outcome === 'aborted') return;
      if (outcome.length === 0) return;
      live = outcome;
      if (attempt >= s.attempts) {
        await this.exhaust(live, attempt + 1);
        return;
      }
      attempt++;
      s.stats.retries++;
      const delay = backoffDelay(s.backoff, attempt, s.random);
      s.emit({ type: 'backoff', worker: this.worker, retryAttempt: attempt, delayMs: delay });
      try {
        await s.clock.sleep(delay, signal);
      } catch {
        return;
      }
    }
  }

  /** On stop before an invocation: filtered and invalid items of this batch still finish (they need no handler). */
  private async settleCarry(done: Pending[], dead: DeadPending[]): Promise<void> {
    if (done.length > 0 || dead.length > 0) await this.output.complete(done, dead);
  }

  /** One invocation; resolves with the items to retry, or 'aborted' when stopping cut it short. */
  private async invoke(
    live: Live[],
    attempt: number,
    carryDone: Pending[],
    carryDead: DeadPending[],
    signal: AbortSignal,
  ): Promise<Live[] | 'aborted'> {
    const s = this.s;
    const trial = await this.pass(live.length, signal);
    if (trial === 'aborted') {
      await this.settleCarry(carryDone, carryDead);
      return 'aborted';
    }
    const items = this.itemsFor(live, attempt);
    s.emit({ type: 'dispatch', worker: this.worker, size: items.length, retryAttempt: attempt });
    try {
      const txn = await this.output.begin();
      const results = await s.handler(new MessageBatch(items, attempt, signal, this.worker, txn));
      const split = this.split(live, items, results ?? [], attempt + 1);
      const done = carryDone.length === 0 ? split.done : [...carryDone, ...split.done];
      const dead = carryDead.length === 0 ? split.dead : [...carryDead, ...split.dead];
      await this.output.complete(done, dead);
      s.breaker?.succeeded(trial);
      s.stats.processed += split.done.length;
      const finished = split.done.length + split.dead.length;
      s.emit({ type: 'batch-done', worker: this.worker, done: finished, retrying: split.retry.length });
      return split.retry;
    } catch (error) {
      await this.failed(live, attempt, trial, error);
      // Filtered and invalid items do not depend on the handler: they finish even when it failed.
      await this.settleCarry(carryDone, carryDead);
      return live;
    }
  }

  /** The circuit breaker, then one rate-limit permit per item; whether this is the half-open trial, or 'aborted'. */
  private async pass(permits: number, signal: AbortSignal): Promise<boolean | 'aborted'> {
    const s = this.s;
    let trial = false;
    try {
      trial = (await s.breaker?.acquire(signal)) ?? false;
      if (s.bucket)
        await s.bucket.acquire(permits, signal, (waitMs) =>
          s.emit({ type: 'rate-limited', worker: this.worker, permits, waitMs }),
        );
      return trial;
    } catch {
      if (trial) s.breaker?.failed(true);
      return 'aborted';
    }
  }

  /** The items of this attempt: the admitted ones, or copies whose transport counts the retry. */
  private itemsFor(live: readonly Live[], attempt: number): BatchItem<T>[] {
    const items = new Array<BatchItem<T>>(live.length);
    for (let i = 0; i < live.length; i++) {
      const l = live[i]!;
      const item = l.item as BatchItem<T>;
      items[i] = attempt === 0 ? item : { message: item.message, transport: transportOf(l.record, attempt + 1) };
    }
    return items;
  }

  /** A failed invocation: the transaction is dropped, the breaker counts it, and every item keeps the error. */
  private async failed(live: readonly Live[], attempt: number, trial: boolean, error: unknown): Promise<void> {
    const s = this.s;
    await this.output.abort().catch(() => {});
    s.breaker?.failed(trial);
    const last = attempt >= s.attempts;
    s.emit({
      type: 'batch-failed',
      worker: this.worker,
      retryAttempt: attempt,
      error: error as Error,
      backoffMs: last ? undefined : backoffDelay(s.backoff, attempt + 1, () => 1),
    });
    const text = errorText(error);
    for (const l of live) l.lastError = text;
  }

  private split(
    live: Live[],
    items: readonly BatchItem<T>[],
    results: readonly ItemResult<T>[],
    attempts: number,
  ): { done: Pending[]; dead: DeadPending[]; retry: Live[] } {
    if (results.length === 0) return { done: live, dead: [], retry: [] };
    const verdict = new Map<BatchItem<T>, ItemResult<T>>();
    for (const r of results) verdict.set(r.item, r);
    const done: Pending[] = [];
    const dead: DeadPending[] = [];
    const retry: Live[] = [];
    for (let i = 0; i < live.length; i++) {
      const r = verdict.get(items[i]!);
      const l = live[i]!;
      if (!r || r.outcome === 'ok') done.push(l);
      else if (r.outcome === 'dead-letter')
        dead.push({ pending: l, transport: items[i]!.transport, reason: r.reason, attempts });
      else {
        l.lastError = r.reason ?? 'handler asked for a retry';
        retry.push(l);
      }
    }
    this.countDead(dead);
    return { done, dead, retry };
  }

  private countDead(dead: readonly DeadPending[]): void {
    for (const d of dead) {
      this.s.stats.deadLettered++;
      const t = d.transport;
      this.s.emit({
        type: 'dead-lettered',
        topic: t.topic,
        partition: t.partition,
        offset: t.offset,
        dlqTopic: `${t.topic}.dlq`,
        reason: d.reason,
      });
    }
  }

  private async exhaust(live: Live[], attempts: number): Promise<void> {
    const reasonOf = (l: Live): string => l.lastError ?? 'retries exhausted';
    if (this.s.onExhausted === 'discard') {
      const done: Pending[] = [];
      for (const l of live) this.discard(l, l.item!.transport, reasonOf(l), done);
      await this.output.complete(done, []);
      return;
    }
    const dead = live.map((l) => ({ pending: l, transport: l.item!.transport, reason: reasonOf(l), attempts }));
    this.countDead(dead);
    await this.output.complete([], dead);
  }
}
