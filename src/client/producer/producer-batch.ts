/**
 * One batch of the accumulator: the records bound for one topic (or, on a backend that partitions in the client,
 * one topic-partition) in send order. A batch settles as a whole, except after a partial append: the acked prefix
 * has its outcome and the rest moves to a tail batch, which keeps the parent's creation time, deadline and attempt
 * count.
 *
 * The hot path allocates little per record, because pending records survive young-generation collections and
 * every object they hold is copied there (a profile showed 27–31% of client CPU in GC with one promise, two
 * resolving functions and their context per record). So a batch has ONE promise, `done`, that resolves once every
 * record of it has an outcome; send() returns `done.then(pick)`, one derived promise per record and no closure. A promise's reactions run in the order they were attached, and each record attached
 * exactly one `pick`, so the n-th `pick` to run reads the n-th outcome. The records' own bytes are encoded once, as
 * PRODUCE_BATCH entries, into `entries` when they are appended (for a sink that takes encoded entries).
 */
import type { DeliveryRequest } from '../../errors.js';
import type { EntryWriter, ProduceAck, ProducerRecord } from './sink.js';

export type BatchState = 'open' | 'ready' | 'backoff' | 'in-flight' | 'done';

/** The outcomes of one batch's records, by position. */
export interface Outcomes {
  /** An ack, the error the record failed with, or (moved to a tail) the promise of its outcome there. */
  items: (ProduceAck | Error | LazyFailure | Promise<ProduceAck>)[];
  /** Records still without an outcome. */
  unsettled: number;
  /** The position the next `pick` reads. */
  next: number;
  resolve(outcomes: Outcomes): void;
}

/** A failure whose error for record i is built only when that record's promise settles. */
class LazyFailure {
  constructor(readonly errorAt: (i: number) => Error) {}
}

function pick(o: Outcomes): ProduceAck | Promise<ProduceAck> {
  const i = o.next++;
  const outcome = o.items[i]!;
  if (o.next === o.items.length) release(o);
  if (outcome instanceof Error) throw outcome;
  if (outcome instanceof LazyFailure) throw outcome.errorAt(i);
  return outcome;
}

/**
 * Drops the outcomes once every record has taken its own. A batch that lived through a young-generation collection
 * sits in the old generation until the next full one, even dead, and would keep its acks alive (copied and promoted)
 * through every young collection until then.
 */
function release(o: Outcomes): void {
  o.items = [];
}

let captured: (o: Outcomes) => void = () => undefined;
function capture(resolve: (o: Outcomes) => void): void {
  captured = resolve;
}

let nextOrder = 0;

export class ProducerBatch {
  /** The records in send order; none once the batch is released (dropRecords). */
  records: ProducerRecord[] = [];
  state: BatchState = 'open';
  /** FrameLen of the PRODUCE_BATCH that carries these records. */
  frameBytes: number;
  /** What the records hold of the producer's buffer. */
  chargedBytes = 0;
  attempts = 0;
  /** Set when every record has its outcome (the request may still be out: see `inFlight`). */
  settled = false;
  inFlight = false;
  released = false;
  request: DeliveryRequest | undefined;
  lastError: Error | undefined;
  lingerTimer: unknown;
  deadlineTimer: unknown;
  backoffTimer: unknown;
  /** Resolves (never rejects) when every record of this batch has its outcome, or has moved to `tail`. */
  readonly done: Promise<Outcomes>;
  /** The batch the unsent records of a partial append moved to. */
  tail: ProducerBatch | undefined;
  /** Creation order (a tail keeps its batch's): a retry goes back into its key's queue in this order. */
  order = nextOrder++;
  private readonly outcomes: Outcomes;

  /**
   * `entries`: where appended records are encoded, or undefined for a sink that takes records (and for a tail,
   * which is encoded when it is sent).
   */
  constructor(
    readonly key: string,
    readonly topic: string,
    readonly partition: number | undefined,
    readonly withHeaders: boolean,
    overheadBytes: number,
    readonly createdAt: number,
    readonly deadline: number,
    private entries: EntryWriter | undefined,
  ) {
    this.frameBytes = overheadBytes;
    this.done = new Promise<Outcomes>(capture);
    this.outcomes = { items: [], unsettled: 0, next: 0, resolve: captured };
  }

  get count(): number {
    return this.records.length;
  }

  add(record: ProducerRecord, entryBytes: number, chargedBytes: number): Promise<ProduceAck> {
    this.addUnwatched(record, entryBytes, chargedBytes);
    return this.done.then(pick);
  }

  /** Adds a record without a promise of its own: `watchRun` reads its outcome, with its neighbours' (send-many.ts). */
  addUnwatched(record: ProducerRecord, entryBytes: number, chargedBytes: number): void {
    this.records.push(record);
    this.entries?.append(record, this.withHeaders);
    this.frameBytes += entryBytes;
    this.chargedBytes += chargedBytes;
    this.outcomes.unsettled += 1;
  }

  /**
   * One reaction for the `n` records just added with addUnwatched: it takes their `n` positions in the order `pick`
   * does (reactions run in the order they were attached) and hands `take` each record's outcome, in order.
   */
  watchRun(n: number, take: (j: number, outcome: ProduceAck | Error | Promise<ProduceAck>) => void): void {
    void this.done.then((o) => {
      const from = o.next;
      o.next += n;
      for (let j = 0; j < n; j++) {
        const outcome = o.items[from + j]!;
        take(j, outcome instanceof LazyFailure ? outcome.errorAt(from + j) : outcome);
      }
      if (o.next >= o.items.length) release(o);
    });
  }

  /** The encoded entries, handed over once (a resend encodes the records again). */
  takeEntries(): EntryWriter | undefined {
    const entries = this.entries;
    this.entries = undefined;
    return entries;
  }

  /** Records the first `acks.length` records as acked (the whole batch or an acked prefix). */
  ackPrefix(acks: readonly ProduceAck[]): void {
    const o = this.outcomes;
    if (o.items.length === 0 && acks.length === o.unsettled) {
      o.items = acks as ProduceAck[];
    } else {
      for (let i = 0; i < acks.length; i++) o.items[i] = acks[i]!;
    }
    this.settleCount(acks.length);
  }

  /** Records every record from `from` on as failed with the error `errorAt(i)` gives for record i. */
  failFrom(from: number, errorAt: (i: number) => Error): void {
    const o = this.outcomes;
    for (let i = from; i < this.count; i++) o.items[i] = errorAt(i);
    this.settleCount(this.count - from);
  }

  /** Records every record as failed with the error `errorAt(i)` will build for record i when it settles. */
  failLazily(errorAt: (i: number) => Error): void {
    const failure = new LazyFailure(errorAt);
    const o = this.outcomes;
    for (let i = 0; i < this.count; i++) o.items[i] = failure;
    this.settleCount(this.count);
  }

  private settleCount(n: number): void {
    const o = this.outcomes;
    o.unsettled -= n;
    if (o.unsettled === 0) o.resolve(o);
  }

  /**
   * Moves records `from`.. into a new batch (the unsent tail of a partial append); this batch keeps the prefix. The
   * tail is a root of its own: each moved record's outcome here becomes its outcome there (pick returns a promise,
   * which the record's promise follows), so the acked prefix settles now instead of waiting for the tail.
   */
  splitTail(
    from: number,
    overheadBytes: number,
    sizeOf: (r: ProducerRecord) => { entry: number; charge: number },
  ): ProducerBatch {
    const tail = new ProducerBatch(
      this.key,
      this.topic,
      this.partition,
      this.withHeaders,
      overheadBytes,
      this.createdAt,
      this.deadline,
      undefined,
    );
    tail.order = this.order;
    const o = this.outcomes;
    for (let i = from; i < this.count; i++) {
      const record = this.records[i]!;
      const size = sizeOf(record);
      tail.records.push(record);
      tail.outcomes.unsettled += 1;
      tail.frameBytes += size.entry;
      tail.chargedBytes += size.charge;
      o.items[i] = tail.done.then(pick);
    }
    this.chargedBytes -= tail.chargedBytes;
    this.settleCount(this.count - from);
    this.records.length = from;
    tail.attempts = this.attempts;
    tail.lastError = this.lastError;
    this.tail = tail;
    return tail;
  }

  /**
   * Lets go of the records once the batch is released: nothing resends them, and the uncertain errors built lazily
   * hold the array they were given. A batch that lived through a young-generation collection sits in the old
   * generation until the next full one, even dead, and kept every record (and the bytes it views) alive, copied and
   * promoted, through each young collection until then: most of what `crater produce` promoted.
   */
  dropRecords(): void {
    this.records = [];
  }

  /** Marks the batch settled: every record of it has its outcome. */
  markSettled(): void {
    this.settled = true;
  }
}
