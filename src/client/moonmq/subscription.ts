/**
 * Push-mode consumption (SUBSCRIBE) on a connection of its own: a connection is either pull or push (wire.md
 * §2.5), and closing it is what stops the broker's push loop. The broker answers OK, then pushes RECORD frames
 * with the zero correl and commits once the frames are flushed, so records queued here are already committed.
 *
 * Breaking out of `for await` (or close()) closes the connection. Past `highWaterMark` queued records the socket
 * stops being read, which makes the broker's push loop wait on its send queue instead of buffering without bound.
 */
import { CraterError } from '../../errors.js';
import { decodePayload } from '../../protocol/message.js';
import { OkReply } from '../../protocol/messages/control.js';
import { RecordReply, type FetchedRecord } from '../../protocol/messages/fetch.js';
import type { NackAck } from '../../protocol/messages/nack.js';
import { SubscribeRequest } from '../../protocol/messages/subscribe.js';
import type { IsolationLevel } from '../../protocol/opcodes.js';
import { Caps } from '../../protocol/limits.js';
import { commit, nack } from './admin.js';
import { isolationByte, type IsolationName, type Session } from './session.js';
import { validateString, validateTopicName } from '../validate.js';

export interface SubscribeOptions {
  isolation?: IsolationName | IsolationLevel;
  /** Queued records past which the socket is paused (default 1,024). */
  highWaterMark?: number;
}

export class Subscription implements AsyncIterable<FetchedRecord>, AsyncDisposable {
  private session: Session | undefined;
  private readonly started: Promise<void>;
  private queue: FetchedRecord[] = [];
  private head = 0;
  private waiter: (() => void) | undefined;
  private failure: Error | undefined;
  private ended = false;
  private isPaused = false;
  private requestsInFlight = 0;
  private readonly highWaterMark: number;

  constructor(
    open: () => Promise<Session>,
    readonly topic: string,
    readonly group: string,
    options: SubscribeOptions = {},
    private readonly onClosed?: (s: Subscription) => void,
  ) {
    validateTopicName(topic);
    validateString('group', group, Caps.group);
    this.highWaterMark = options.highWaterMark ?? 1_024;
    this.started = this.start(open, isolationByte(options.isolation));
    // A failed start surfaces from the iterator or ready(); it must not also be an unhandled rejection.
    this.started.catch(() => {});
  }

  /** True while the socket is not being read because the queue passed the high-water mark. */
  get paused(): boolean {
    return this.isPaused;
  }

  /** Resolves once the broker accepted the SUBSCRIBE (records may already be queued). */
  ready(): Promise<void> {
    return this.started;
  }

  private async start(open: () => Promise<Session>, isolation: IsolationLevel | undefined): Promise<void> {
    const session = await open();
    this.session = session;
    if (this.ended) {
      await session.conn.close();
      return;
    }
    session.conn.setPushHandler((frame) => {
      try {
        this.enqueue(decodePayload(RecordReply, frame.payload));
      } catch (error) {
        this.fail(error as Error);
        session.conn.destroy();
      }
    });
    session.conn.onClose((error) => {
      if (error) this.fail(error);
      this.finish();
    });
    await session.conn.request(SubscribeRequest, { topic: this.topic, group: this.group, isolation }, OkReply);
  }

  /** Overrides the broker's automatic commit for a partition; `offset` is the next record to read. */
  commit(partition: number, offset: bigint, topic = this.topic): Promise<void> {
    return this.whileReading((s) => commit(s.conn, topic, partition, offset));
  }

  /** Rejects a record (its own offset): it is redelivered, or dead-lettered after the broker's max deliveries. */
  nack(partition: number, offset: bigint, reason: string, topic = this.topic): Promise<NackAck> {
    return this.whileReading((s) => nack(s.conn, topic, partition, offset, reason));
  }

  async close(): Promise<void> {
    this.finish();
    try {
      await this.started;
    } catch {
      // The start failure was the caller's to see through ready() or the iterator; closing still succeeds.
    }
    await this.session?.conn.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  [Symbol.asyncIterator](): AsyncIterator<FetchedRecord> {
    return {
      next: () => this.next(),
      return: async () => {
        await this.close();
        return { done: true, value: undefined };
      },
    };
  }

  private async next(): Promise<IteratorResult<FetchedRecord>> {
    await this.started;
    for (;;) {
      if (this.head < this.queue.length) {
        const value = this.queue[this.head]!;
        // Handed-out records must not stay referenced while a consumer that never quite catches up keeps the queue
        // from emptying: drop the slot, and drop the consumed front once it is half the array.
        this.queue[this.head++] = undefined!;
        if (this.head === this.queue.length) {
          this.queue = [];
          this.head = 0;
        } else if (this.head >= 1_024 && this.head * 2 >= this.queue.length) {
          this.queue = this.queue.slice(this.head);
          this.head = 0;
        }
        this.maybeResume();
        return { done: false, value };
      }
      if (this.failure) throw this.failure;
      if (this.ended) return { done: true, value: undefined };
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
  }

  private enqueue(record: FetchedRecord): void {
    this.queue.push(record);
    this.maybePause();
    this.wake();
  }

  /**
   * Pauses past the high-water mark, unless a request's reply is still to be read. Also checked when the last
   * request settles: the records read while waiting for its reply may have left the queue far over the mark.
   */
  private maybePause(): void {
    if (!this.isPaused && this.requestsInFlight === 0 && this.queue.length - this.head >= this.highWaterMark) {
      this.isPaused = true;
      this.session?.conn.pause();
    }
  }

  private maybeResume(): void {
    if (this.isPaused && this.queue.length - this.head <= this.highWaterMark / 2) {
      this.isPaused = false;
      this.session?.conn.resume();
    }
  }

  /** A request's reply must be read even when the queue is full, or the caller would wait on itself. */
  private async whileReading<T>(fn: (s: Session) => Promise<T>): Promise<T> {
    await this.started;
    this.requestsInFlight++;
    if (this.isPaused) {
      this.isPaused = false;
      this.session!.conn.resume();
    }
    try {
      return await fn(this.session!);
    } finally {
      this.requestsInFlight--;
      this.maybePause();
    }
  }

  private fail(error: Error): void {
    this.failure ??=
      error instanceof CraterError ? error : new CraterError('ERR_CONNECTION', error.message, { cause: error });
    this.wake();
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.onClosed?.(this);
    this.wake();
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }
}
