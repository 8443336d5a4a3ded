/**
 * Push delivery after SUBSCRIBE (semantics.md §11): each pass polls up to push_batch records over the connection's
 * partitions, queues them as RECORD frames with the zero correl (waiting for the send queue to drain first when it
 * would pass the pending-bytes cap), waits until everything is flushed to the socket, then commits once per
 * partition. An empty pass sleeps push_interval on a timer that close and stop clear.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { ZERO_CORREL } from '../../protocol/message.js';
import { ErrorFrame } from '../../protocol/messages/error.js';
import { HandlerError } from '../handler.js';
import type { ConnectionHandle } from '../handler.js';
import { encodeRecordFrames } from './record-frames.js';
import type { PushSource } from './push-source.js';
import type { ConsumerSession } from './session.js';

export class PushLoop {
  /** Settles when the loop has exited. */
  readonly done: Promise<void>;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly rt: PushSource,
    private readonly conn: ConnectionHandle,
    private readonly session: ConsumerSession,
  ) {
    this.done = this.run();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.wake?.();
  }

  private get running(): boolean {
    return !this.stopped && !this.conn.closed;
  }

  private async run(): Promise<void> {
    // Let SUBSCRIBE's OK go out first.
    await Promise.resolve();
    try {
      while (this.running) {
        const delivered = await this.pass();
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- `running` is changed during the await above; TypeScript keeps the narrowing across it (TypeScript#9998)
        if (delivered === 0 && this.running) await this.sleep(this.rt.settings.pushIntervalMs);
      }
    } catch (err) {
      this.fail(err);
    } finally {
      this.stop();
    }
  }

  /** One poll-send-flush-commit round; returns how many records it delivered. */
  private async pass(): Promise<number> {
    const group = this.session.group!;
    const result = this.rt.pollFor(this.conn, this.session, this.rt.settings.pushBatch);
    if (result.partitions.length === 0) return 0;
    if (result.total === 0) {
      // Only cursor moves (control records, retention, torn tail): nothing to send, but keep them.
      this.rt.advance(group, result.partitions);
      await this.rt.commitDelivered(group, result.partitions);
      return 0;
    }
    const frames = encodeRecordFrames(ZERO_CORREL, result.partitions, {
      batched: false,
      headers: false,
      withOk: false,
      alloc: this.rt.replyPool.take,
    });
    const cap = this.rt.broker.config.maxPendingSendBytes;
    if (this.conn.pendingSendBytes > 0 && this.conn.pendingSendBytes + frames.length > cap) {
      await this.conn.flushed();
    }
    if (!this.running) return 0;
    this.conn.sendRaw(frames);
    this.rt.advance(group, result.partitions);
    try {
      await this.conn.flushed();
    } catch {
      this.rt.rewind(group, result.partitions);
      return 0;
    }
    // Every byte reached the kernel: the buffer can carry the next pass (reply-pool.ts); a closed connection keeps it.
    this.rt.replyPool.give(frames);
    await this.rt.commitDelivered(group, result.partitions);
    return result.total;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.wake = undefined;
        resolve();
      }, ms);
    });
  }

  /** A poll that cannot go on (a value that does not decompress, a read failure) ends the loop with an ERROR. */
  private fail(err: unknown): void {
    const code = err instanceof HandlerError ? err.code : ErrorCode.INTERNAL;
    const message = err instanceof Error ? err.message : String(err);
    this.rt.broker.logger.error('push delivery stopped', { error: message });
    if (!this.conn.closed) this.conn.send(ErrorFrame, ZERO_CORREL, { code, message });
  }
}
