/**
 * One batch of the accumulator: the records bound for one topic (or, on a backend that partitions in the client,
 * one topic-partition) in send order, each with the settle functions of its send() promise. A batch settles as a
 * whole, except after a partial append: the acked prefix settles and the rest moves to a tail batch, which keeps the
 * parent's creation time, deadline and attempt count.
 */
import type { DeliveryRequest } from '../../errors.js';
import type { ProduceAck, ProducerRecord } from './sink.js';

export type BatchState = 'open' | 'ready' | 'backoff' | 'in-flight' | 'done';

// One executor for every record's promise, so a send allocates no closure of its own (the hot path of send()).
let capturedResolve: (ack: ProduceAck) => void = () => undefined;
let capturedReject: (error: Error) => void = () => undefined;
function capture(resolve: (ack: ProduceAck) => void, reject: (error: Error) => void): void {
  capturedResolve = resolve;
  capturedReject = reject;
}

export class ProducerBatch {
  readonly records: ProducerRecord[] = [];
  private readonly resolves: ((ack: ProduceAck) => void)[] = [];
  private readonly rejects: ((error: Error) => void)[] = [];
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
  /** Resolves when every record of this batch and of its tails has settled. */
  readonly done: Promise<void>;
  private finishDone!: () => void;

  constructor(
    readonly key: string,
    readonly topic: string,
    readonly partition: number | undefined,
    readonly withHeaders: boolean,
    overheadBytes: number,
    readonly createdAt: number,
    readonly deadline: number,
  ) {
    this.frameBytes = overheadBytes;
    this.done = new Promise((resolve) => (this.finishDone = resolve));
  }

  get count(): number {
    return this.records.length;
  }

  add(record: ProducerRecord, entryBytes: number, chargedBytes: number): Promise<ProduceAck> {
    this.records.push(record);
    this.frameBytes += entryBytes;
    this.chargedBytes += chargedBytes;
    const promise = new Promise<ProduceAck>(capture);
    this.resolves.push(capturedResolve);
    this.rejects.push(capturedReject);
    return promise;
  }

  /** Settles the first `acks.length` records as acked (used for the whole batch or an acked prefix). */
  resolvePrefix(acks: readonly ProduceAck[]): void {
    for (let i = 0; i < acks.length; i++) this.resolves[i]!(acks[i]!);
  }

  /** Settles every record from `from` on with the error `errorAt(i)` gives for record i. */
  rejectFrom(from: number, errorAt: (i: number) => Error): void {
    for (let i = from; i < this.rejects.length; i++) this.rejects[i]!(errorAt(i));
  }

  /** Moves records `from`.. into a new batch (the unsent tail of a partial append); this batch keeps the prefix. */
  splitTail(
    from: number,
    overheadBytes: number,
    entryBytes: (r: ProducerRecord) => number,
    recordOverheadBytes: number,
  ): ProducerBatch {
    const tail = new ProducerBatch(
      this.key,
      this.topic,
      this.partition,
      this.withHeaders,
      overheadBytes,
      this.createdAt,
      this.deadline,
    );
    for (let i = from; i < this.count; i++) {
      const record = this.records[i]!;
      const entry = entryBytes(record);
      tail.records.push(record);
      tail.resolves.push(this.resolves[i]!);
      tail.rejects.push(this.rejects[i]!);
      tail.frameBytes += entry;
      tail.chargedBytes += entry + recordOverheadBytes;
    }
    this.chargedBytes -= tail.chargedBytes;
    this.records.length = from;
    this.resolves.length = from;
    this.rejects.length = from;
    tail.attempts = this.attempts;
    tail.lastError = this.lastError;
    void tail.done.then(() => this.finishDone());
    return tail;
  }

  /** Marks the batch settled; `done` resolves unless a tail is still pending (it resolves `done` itself). */
  markSettled(hasTail = false): void {
    this.settled = true;
    if (!hasTail) this.finishDone();
  }
}
