/**
 * The runner behind `crater produce`: every record goes to a Producer's send(), so the accumulator batches them
 * (linger, batch bytes, --batch as the record cap per batch, a bounded buffer, one delivery deadline). Sends are not
 * awaited one by one; reports still come out in input order, each saying acked, failed or uncertain. Input is read
 * only while the producer's buffer has room, so a slow broker slows the reader instead of growing memory.
 *
 * Per-record failures (a malformed line, a record too large, a broker refusal) are reported and production goes
 * on. A lost connection, a timeout or an uncertain delivery ends it: what was already sent is reported, then the
 * first such error is thrown.
 */
import { BrokerError, ConnectionError, CraterError, TimeoutError, UncertainDeliveryError } from '../errors.js';
import { ErrorCode } from '../protocol/error-codes.js';
import type { BackendProducer } from '../client/backend.js';
import type { ProduceAck } from '../client/index.js';
import type { Delivery, PendingRecord, SendStats } from './producing.js';

/** What the runner needs of a producer; one without a client-side buffer (Kafka's) is bounded by a count instead. */
export type AccumulatingSender = Pick<
  BackendProducer,
  'send' | 'flush' | 'bufferAvailableBytes' | 'metrics' | 'requestsSent'
>;

/** Sends in flight at most when the producer reports no buffer room of its own. */
const MAX_UNBUFFERED_PENDING = 10_000;

export interface RunnerOptions {
  topic: string;
}

type Outcome = ProduceAck | CraterError;

interface Entry {
  pending: PendingRecord;
  outcome: Outcome | undefined;
  settled: Promise<void> | undefined;
}

/**
 * Reports one delivery. It returns a promise only when the caller has to wait (the reader of the reports pushes
 * back), so a run without reports settles each record without an await of its own.
 */
export type Report = (d: Delivery) => Promise<void> | undefined;

/** Bytes a record of this size holds in the producer's buffer, near enough to decide whether to read on. */
function charge(p: PendingRecord): number {
  const r = p.record!;
  const len = (v: Buffer | string | undefined): number =>
    v === undefined ? 0 : typeof v === 'string' ? Buffer.byteLength(v) : v.length;
  return 8 + len(r.key) + len(r.value) + 256;
}

/** Errors that end the run: the outcome is unknown, the broker is gone, or every later record would fail alike. */
function ends(error: CraterError): boolean {
  if (error instanceof BrokerError) return error.errorCode === ErrorCode.TOPIC_MISSING;
  return error instanceof UncertainDeliveryError || error instanceof ConnectionError || error instanceof TimeoutError;
}

/** The delivery report of a settled entry; throws when every later record would fail alike (a missing topic). */
function delivery(entry: Entry, topic: string): Delivery {
  const p = entry.pending;
  const outcome = entry.outcome!;
  // Every record would fail alike: the run ends with this one error (and its create-the-topic hint), not a report each.
  if (outcome instanceof BrokerError && outcome.errorCode === ErrorCode.TOPIC_MISSING) throw outcome;
  if (outcome instanceof Error) {
    const kind = outcome instanceof UncertainDeliveryError ? 'uncertain' : 'failed';
    const error = { code: outcome.code, message: outcome.message };
    return { index: p.index, source: p.source, line: p.lineNo, topic, outcome: kind, error };
  }
  const { partition, offset } = outcome;
  return { index: p.index, source: p.source, line: p.lineNo, topic, outcome: 'acked', partition, offset };
}

/** A FIFO that takes from the front in O(1) (Array#shift moves every element, and the queue holds thousands). */
class EntryQueue {
  private items: Entry[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  get first(): Entry | undefined {
    return this.items[this.head];
  }

  push(entry: Entry): void {
    this.items.push(entry);
  }

  shift(): Entry {
    const entry = this.items[this.head]!;
    this.items[this.head++] = undefined as unknown as Entry;
    if (this.head >= 4096 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return entry;
  }
}

export class ProduceRunner {
  readonly stats: SendStats = { records: 0, delivered: 0, failed: [], requests: 0 };
  private readonly queue = new EntryQueue();
  private fatal: CraterError | undefined;

  constructor(
    private readonly producer: AccumulatingSender,
    private readonly options: RunnerOptions,
    private readonly report: Report,
  ) {}

  /**
   * Sends one record (or reports the line that could not become one) and reports every delivery settled so far, in
   * input order. Returns a promise only when the caller must wait: the buffer is full, or the reports push back.
   */
  add(p: PendingRecord): Promise<void> | undefined {
    if (this.fatal) return this.flush();
    this.stats.records += 1;
    if (p.error || !p.record) {
      // Reported before the next record is read, so a caller that stops at the first failure (a transaction) sends
      // nothing after it.
      this.queue.push({ pending: p, outcome: p.error, settled: undefined });
      return this.reportAll();
    }
    if (this.queue.length > 0 && this.full(p)) return this.addWhenRoom(p);
    this.send(p);
    return this.reportSettled();
  }

  /** Waits for every record sent so far and reports it; throws the error that ended the run, if one did. */
  async flush(): Promise<void> {
    // The open batches go now rather than after their linger; failures are reported per record below.
    const flushed = this.producer.flush().catch(() => undefined);
    await this.reportAll();
    await flushed;
    this.stats.requests = this.producer.metrics?.()['request-total'] ?? this.producer.requestsSent ?? 0;
    if (this.fatal) throw this.fatal;
  }

  private async addWhenRoom(p: PendingRecord): Promise<void> {
    while (this.queue.length > 0 && this.full(p)) await this.reportHead();
    this.send(p);
    await this.reportSettled();
  }

  private send(p: PendingRecord): void {
    const entry: Entry = { pending: p, outcome: undefined, settled: undefined };
    entry.settled = this.producer.send(this.options.topic, p.record!).then(
      (ack) => void (entry.outcome = ack),
      (error: unknown) => {
        entry.outcome = error instanceof CraterError ? error : new CraterError('ERR_USAGE', String(error));
        if (ends(entry.outcome)) this.fatal ??= entry.outcome;
      },
    );
    this.queue.push(entry);
  }

  private full(p: PendingRecord): boolean {
    const room = this.producer.bufferAvailableBytes;
    return room === undefined ? this.queue.length >= MAX_UNBUFFERED_PENDING : room < charge(p);
  }

  private async reportAll(): Promise<void> {
    while (this.queue.length > 0) await this.reportHead();
  }

  /** Reports the entries at the front that have settled, without waiting for the others. */
  private reportSettled(): Promise<void> | undefined {
    while (this.queue.first?.outcome !== undefined) {
      const wait = this.reportEntry(this.queue.shift());
      if (wait) return wait.then(() => this.reportSettled());
    }
    return undefined;
  }

  private async reportHead(): Promise<void> {
    await this.queue.first!.settled;
    await this.reportEntry(this.queue.shift());
  }

  private reportEntry(entry: Entry): Promise<void> | undefined {
    const d = delivery(entry, this.options.topic);
    if (d.outcome === 'acked') this.stats.delivered += 1;
    else this.stats.failed.push(d);
    return this.report(d);
  }
}
