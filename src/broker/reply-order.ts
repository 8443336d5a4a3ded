/**
 * Replies leave a connection in request order even when a handler's reply waits on work (a produce's fsync): such a
 * reply is *deferred*, and every frame written after it is *held* in memory until the replies ahead of it are out.
 * Held frames count against the connection's send budget (`heldBytes`), so a pipelining client cannot grow the
 * broker without bound behind one slow fsync; the connection makes dispatch wait while they exceed the budget.
 *
 * Deferred replies and held frames wait in one FIFO. A finished piece of work marks its entry ready and writes out
 * every ready entry at the head, synchronously: one `then` per deferred reply and no promise chain, so a reply
 * goes out in the same microtask its fsync's completion reaches it, and no frame can slip between a reply and the
 * frames held behind it.
 */

/** Replies outstanding on work past which dispatch waits, bounding memory however small each reply is. */
export const MAX_DEFERRED_REPLIES = 1_024;

export interface ReplySink {
  /** Writes to the socket now (the connection's own budget check applies). */
  writeNow(buf: Buffer): void;
  /** Turns a failed piece of work into the request's ERROR reply. */
  replyFailed(err: unknown, op: number, correl: Buffer): void;
  isClosed(): boolean;
}

/** A reply waiting on its work; `state` 0 while the work runs, 1 done (`value`), 2 failed (`value` is the error). */
interface DeferredEntry {
  held: undefined;
  state: 0 | 1 | 2;
  value: unknown;
  reply: (value: never) => void;
  op: number;
  correl: Buffer;
  /** Set past MAX_DEFERRED_REPLIES: resolves the dispatch wait once this reply is out. */
  written: (() => void) | undefined;
}

interface HeldEntry {
  held: Buffer;
}

type Entry = DeferredEntry | HeldEntry;

const SETTLED: Promise<void> = Promise.resolve();

export class ReplyOrder {
  private entries: (Entry | undefined)[] = [];
  private head = 0;
  private deferred = 0;
  private held = 0;
  private inDeferredReply = false;
  private drainWaiters: (() => void)[] = [];
  private drainPromise: Promise<void> | undefined;

  constructor(private readonly sink: ReplySink) {}

  /** True while a frame written now would overtake a deferred reply, so it must be held instead. */
  get holding(): boolean {
    return this.head < this.entries.length && !this.inDeferredReply;
  }

  /** Bytes of frames held behind deferred replies. */
  get heldBytes(): number {
    return this.held;
  }

  /** Settles once every reply queued so far has been written (or dropped on close). Never rejects. */
  get drained(): Promise<void> {
    if (this.head >= this.entries.length) return SETTLED;
    return (this.drainPromise ??= new Promise((resolve) => this.drainWaiters.push(resolve)));
  }

  /** Undefined when nothing is deferred; otherwise settles when every earlier reply is out. */
  settled(): Promise<void> | undefined {
    return this.deferred > 0 ? this.drained : undefined;
  }

  /**
   * Lets a handler finish without holding back the frames behind it while its reply waits on `work`: the next
   * PRODUCE appends at once and the group committer shares one fsync between them. Past MAX_DEFERRED_REPLIES the
   * returned promise makes dispatch wait until this reply is out.
   */
  after<T>(work: Promise<T>, reply: (value: T) => void, op: number, correl: Buffer): Promise<void> | undefined {
    const entry: DeferredEntry = { held: undefined, state: 0, value: undefined, reply, op, correl, written: undefined };
    this.entries.push(entry);
    this.deferred++;
    work.then(
      (value) => this.finish(entry, 1, value),
      (err: unknown) => this.finish(entry, 2, err),
    );
    if (this.deferred <= MAX_DEFERRED_REPLIES) return undefined;
    return new Promise((resolve) => (entry.written = resolve));
  }

  /** Queues `buf` behind the deferred replies; it is written when they are, or dropped if the connection closed. */
  hold(buf: Buffer): void {
    this.held += buf.length;
    this.entries.push({ held: buf });
  }

  private finish(entry: DeferredEntry, state: 1 | 2, value: unknown): void {
    entry.state = state;
    entry.value = value;
    this.writeReady();
  }

  /** Writes every entry at the head whose work is done, in order, stopping at the first that still waits. */
  private writeReady(): void {
    const entries = this.entries;
    while (this.head < entries.length) {
      const entry = entries[this.head]!;
      if (entry.held === undefined && entry.state === 0) return this.compact();
      entries[this.head++] = undefined;
      if (entry.held === undefined) {
        this.deferred--;
        this.replyTo(entry);
        entry.written?.();
      } else {
        this.held -= entry.held.length;
        if (!this.sink.isClosed()) this.sink.writeNow(entry.held);
      }
    }
    this.entries = [];
    this.head = 0;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    this.drainPromise = undefined;
    for (const resolve of waiters) resolve();
  }

  /** Drops the written prefix once it is most of the array (a pipelining client never lets the FIFO empty). */
  private compact(): void {
    if (this.head >= 1024 && this.head * 2 >= this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }

  private replyTo(entry: DeferredEntry): void {
    this.inDeferredReply = true;
    try {
      if (entry.state === 1) (entry.reply as (value: unknown) => void)(entry.value);
      else this.sink.replyFailed(entry.value, entry.op, entry.correl);
    } catch (err) {
      this.sink.replyFailed(err, entry.op, entry.correl);
    } finally {
      this.inDeferredReply = false;
    }
  }
}
