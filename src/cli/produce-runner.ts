/**
 * The runner behind `crater produce`: every record goes to a Producer's send(), so the accumulator batches them
 * (linger, batch bytes, --batch as the record cap per batch, a bounded buffer, one delivery deadline). Sends are not
 * awaited one by one; reports still come out in input order, each saying acked, failed or uncertain. Input is read
 * only while the producer's buffer has room, so a slow broker slows the reader instead of growing memory.
 *
 * A chunk of records goes to the producer's sendMany() (one promise per chunk, not per record: a million pending
 * promises and their reactions cost a third of the CLI's CPU in the collector); the runner keeps one entry per
 * chunk, and builds a record's Delivery only when it is reported (--json) or failed.
 *
 * Per-record failures (a malformed line, a record too large, a broker refusal) are reported and production goes
 * on. A lost connection, a timeout or an uncertain delivery ends it: what was already sent is reported, then the
 * first such error is thrown.
 */
import { BrokerError, ConnectionError, CraterError, TimeoutError, UncertainDeliveryError } from '../errors.js';
import { ErrorCode } from '../protocol/error-codes.js';
import type { BackendProducer } from '../client/backend.js';
import type { RecordOutcome } from '../client/index.js';
import { type Delivery, lineOf, type RecordChunk, type SendStats } from './producing.js';

/** What the runner needs of a producer; one without sendMany (Kafka's) is bounded by a count instead. */
export type AccumulatingSender = Pick<BackendProducer, 'send' | 'sendMany' | 'flush' | 'metrics' | 'requestsSent'>;

/** Sends in flight at most when the producer has no sendMany (and so no buffer the runner can ask). */
const MAX_UNBUFFERED_PENDING = 10_000;

export interface RunnerOptions {
  topic: string;
}

/** Where deliveries go: stdout (--json), stderr (failures), the progress line. */
export interface Reporter {
  /** Acked records are reported one by one (--json, while its reader is there); else only counted. */
  readonly eachAck: boolean;
  /**
   * Reports the deliveries of a stretch of records, in input order (every one when eachAck, else the failed ones).
   * It returns a promise only when the caller has to wait (the reader of the reports pushes back).
   */
  report(deliveries: readonly Delivery[]): Promise<void> | undefined;
}

/** Records sent together: `outcomes[i]` is the outcome of `chunk.records[start + i]` once `settled` resolved. */
interface Entry {
  chunk: RecordChunk;
  start: number;
  count: number;
  outcomes: readonly (RecordOutcome | undefined)[];
  settled: Promise<void>;
  done: boolean;
}

function asCraterError(error: unknown): CraterError {
  return error instanceof CraterError ? error : new CraterError('ERR_USAGE', String(error));
}

/** Errors that end the run: the outcome is unknown, the broker is gone, or every later record would fail alike. */
function ends(error: CraterError): boolean {
  if (error instanceof BrokerError) return error.errorCode === ErrorCode.TOPIC_MISSING;
  return error instanceof UncertainDeliveryError || error instanceof ConnectionError || error instanceof TimeoutError;
}

/** The delivery report of record `j` of `entry`; throws when every later record would fail alike (a missing topic). */
function delivery(entry: Entry, j: number, topic: string): Delivery {
  const c = entry.chunk;
  const at = entry.start + j;
  const where = { index: c.firstIndex + at, source: c.source, line: lineOf(c, at), topic };
  const outcome = c.error ?? entry.outcomes[j]!;
  if (outcome instanceof Error) {
    const error = asCraterError(outcome);
    // Every record would fail alike: the run ends with this one error (and its create-the-topic hint), not a report each.
    if (error instanceof BrokerError && error.errorCode === ErrorCode.TOPIC_MISSING) throw error;
    const kind = error instanceof UncertainDeliveryError ? 'uncertain' : 'failed';
    return { ...where, outcome: kind, error: { code: error.code, message: error.message } };
  }
  return { ...where, outcome: 'acked', partition: outcome.partition, offset: outcome.offset };
}

/** A FIFO that takes from the front in O(1) (Array#shift moves every element). */
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
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return entry;
  }
}

const settledNow = Promise.resolve();

/**
 * What a reported entry points to instead of its chunk and outcomes. An entry that lived through a young-generation
 * collection sits in the old generation, where it stays until the next full collection even once dead, and until
 * then it keeps whatever it points to alive through every young collection: the records of its chunk and its acks,
 * copied and promoted for nothing (about a third of what `crater produce` promoted).
 */
const RELEASED: RecordChunk = { source: '', firstIndex: 0, records: [] };
const NO_OUTCOMES: Entry['outcomes'] = [];

export class ProduceRunner {
  readonly stats: SendStats = { records: 0, delivered: 0, failed: [], requests: 0 };
  private readonly queue = new EntryQueue();
  /** Records sent and not yet reported. */
  private pending = 0;
  private fatal: CraterError | undefined;

  constructor(
    private readonly producer: AccumulatingSender,
    private readonly options: RunnerOptions,
    private readonly reporter: Reporter,
  ) {}

  /**
   * Sends a chunk of records (or reports the line that could not become one) and reports every delivery settled so
   * far, in input order. Returns a promise only when the caller must wait: the buffer is full, or the reports push
   * back.
   */
  add(chunk: RecordChunk): Promise<void> | undefined {
    if (this.fatal) return this.flush();
    if (chunk.error) {
      // Reported before the next chunk is read, so a caller that stops at the first failure (a transaction) sends
      // nothing after it.
      this.stats.records += 1;
      this.queue.push({ chunk, start: 0, count: 1, outcomes: [], settled: settledNow, done: true });
      return this.reportAll();
    }
    const from = this.send(chunk, 0);
    if (from < chunk.records.length) return this.addWhenRoom(chunk, from);
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

  /** Sends the rest of `chunk` as earlier records settle and free room. */
  private async addWhenRoom(chunk: RecordChunk, from: number): Promise<void> {
    while (from < chunk.records.length) {
      if (this.fatal) return this.flush();
      // Nothing of ours is pending, yet there was no room: send() waits for it (or fails: BufferExhaustedError).
      if (this.queue.length === 0) from = this.sendEach(chunk, from, 1);
      else {
        await this.reportHead();
        from = this.send(chunk, from);
      }
    }
    await this.reportSettled();
  }

  /** Sends what fits of `chunk` from `from` on; returns where the rest starts. */
  private send(chunk: RecordChunk, from: number): number {
    if (this.producer.sendMany) {
      const run = this.producer.sendMany(this.options.topic, chunk.records, from);
      if (run.accepted > 0) this.push(chunk, from, run.accepted, run.outcomes, run.settled);
      return from + run.accepted;
    }
    const room = Math.min(chunk.records.length - from, MAX_UNBUFFERED_PENDING - this.pending);
    return room > 0 ? this.sendEach(chunk, from, room) : from;
  }

  /** Sends `n` records of `chunk` from `from` on through send(), one promise each. */
  private sendEach(chunk: RecordChunk, from: number, n: number): number {
    const outcomes = new Array<RecordOutcome | undefined>(n);
    let unsettled = n;
    let resolve: () => void = () => undefined;
    const settled = new Promise<void>((r) => (resolve = r));
    const settle = (i: number, outcome: RecordOutcome): void => {
      outcomes[i] = outcome;
      if (--unsettled === 0) resolve();
    };
    for (let i = 0; i < n; i++) {
      this.producer.send(this.options.topic, chunk.records[from + i]!).then(
        (ack) => settle(i, ack),
        (error: unknown) => settle(i, asCraterError(error)),
      );
    }
    this.push(chunk, from, n, outcomes, settled);
    return from + n;
  }

  private push(
    chunk: RecordChunk,
    start: number,
    count: number,
    outcomes: Entry['outcomes'],
    settled: Promise<void>,
  ): void {
    const entry: Entry = { chunk, start, count, outcomes, settled, done: false };
    this.stats.records += count;
    this.pending += count;
    this.queue.push(entry);
    void settled.then(() => this.settled(entry));
  }

  /** `entry` has every outcome: a lost connection, a timeout or an uncertain record ends the run. */
  private settled(entry: Entry): void {
    entry.done = true;
    if (this.fatal) return;
    for (const outcome of entry.outcomes) {
      if (outcome instanceof Error && ends(asCraterError(outcome))) {
        this.fatal = asCraterError(outcome);
        return;
      }
    }
  }

  private async reportAll(): Promise<void> {
    while (this.queue.length > 0) await this.reportHead();
  }

  /** Reports the entries at the front that have settled, without waiting for the others. */
  private reportSettled(): Promise<void> | undefined {
    while (this.queue.first?.done) {
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
    const topic = this.options.topic;
    const eachAck = this.reporter.eachAck;
    const deliveries: Delivery[] = [];
    if (!entry.chunk.error) this.pending -= entry.count;
    for (let j = 0; j < entry.count; j++) {
      const outcome = entry.outcomes[j];
      if (entry.chunk.error === undefined && !(outcome instanceof Error)) {
        this.stats.delivered += 1;
        if (eachAck) deliveries.push(delivery(entry, j, topic));
        continue;
      }
      const d = delivery(entry, j, topic);
      this.stats.failed.push(d);
      deliveries.push(d);
    }
    entry.chunk = RELEASED;
    entry.outcomes = NO_OUTCOMES;
    return this.reporter.report(deliveries);
  }
}
