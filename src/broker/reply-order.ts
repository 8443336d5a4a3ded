/**
 * Replies leave a connection in request order even when a handler's reply waits on work (a produce's fsync): such a
 * reply is *deferred*, and every frame written after it is *held* in memory until the replies ahead of it are out.
 * Held frames count against the connection's send budget (`heldBytes`), so a pipelining client cannot grow the
 * broker without bound behind one slow fsync; the connection makes dispatch wait while they exceed the budget.
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

export class ReplyOrder {
  private deferred = 0;
  private held = 0;
  private tail: Promise<void> = Promise.resolve();
  private inDeferredReply = false;

  constructor(private readonly sink: ReplySink) {}

  /** True while a frame written now would overtake a deferred reply, so it must be held instead. */
  get holding(): boolean {
    return this.deferred > 0 && !this.inDeferredReply;
  }

  /** Bytes of frames held behind deferred replies. */
  get heldBytes(): number {
    return this.held;
  }

  /** Settles once every reply queued so far has been written (or dropped on close). Never rejects. */
  get drained(): Promise<void> {
    return this.tail;
  }

  /** Undefined when nothing is deferred; otherwise settles when every earlier reply is out. */
  settled(): Promise<void> | undefined {
    return this.deferred > 0 ? this.tail : undefined;
  }

  /**
   * Lets a handler finish without holding back the frames behind it while its reply waits on `work`: the next
   * PRODUCE appends at once and the group committer shares one fsync between them. Past MAX_DEFERRED_REPLIES the
   * returned promise makes dispatch wait.
   */
  after<T>(work: Promise<T>, reply: (value: T) => void, op: number, correl: Buffer): Promise<void> | undefined {
    this.deferred++;
    // Handled below once the earlier replies are out; this keeps an early rejection from counting as unhandled.
    work.catch(() => undefined);
    const step = this.tail
      .then(() => work)
      .then(
        (value) => this.inReply(() => reply(value)),
        (err: unknown) => this.inReply(() => this.sink.replyFailed(err, op, correl)),
      )
      .finally(() => {
        this.deferred--;
      });
    this.tail = step;
    return this.deferred > MAX_DEFERRED_REPLIES ? step : undefined;
  }

  /** Queues `buf` behind the deferred replies; it is written when they are, or dropped if the connection closed. */
  hold(buf: Buffer): void {
    this.held += buf.length;
    this.tail = this.tail.then(() => {
      this.held -= buf.length;
      if (!this.sink.isClosed()) this.sink.writeNow(buf);
    });
  }

  private inReply(fn: () => void): void {
    this.inDeferredReply = true;
    try {
      fn();
    } finally {
      this.inDeferredReply = false;
    }
  }
}
