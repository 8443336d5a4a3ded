/**
 * One client connection: framing, the state machine (wire.md §1), in-order dispatch, watchdogs (their timers are in
 * connection-watchdogs.ts) and a bounded send queue. Frames are decoded as they arrive; a request whose handler
 * returns a promise holds back the ones behind it (a PRODUCE awaiting fsync is never overtaken), while synchronous
 * handlers run without any promise overhead. Replies written within one tick are corked into one writev. Replies
 * held behind a deferred one (reply-order.ts) count against the send budget with the socket's unsent bytes; the
 * broker-wide budget (send-budget.ts) hears of both whenever they change.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { FrameTooLargeError } from '../errors.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { type Frame, FrameDecoder } from '../protocol/frame-decoder.js';
import { type MessageCodec, ZERO_CORREL, emptyMessage, encodeFrame } from '../protocol/message.js';
import { ErrorFrame } from '../protocol/messages/error.js';
import { Op, formatOp } from '../protocol/opcodes.js';
import { type BrokerCore, type OrderedReplies, SESSION_ORDERED_REPLIES } from './core.js';
import type { CloseReason } from './close-reason.js';
import type { ConnectionHandle, ConnectionState, RequestContext } from './handler.js';
import type { HandlerRegistry } from './handler-registry.js';
import { ConnectionWatchdogs, formatSeconds } from './connection-watchdogs.js';
import { HandshakeClock } from './handshake-clock.js';
import { withoutServerPaths } from './public-message.js';
import { failureReply } from './request-failure.js';
import { ReplyOrder } from './reply-order.js';
import { RequestQueue } from './request-queue.js';
import { type BudgetedConnection, type SendBudget, dispatchPause } from './send-budget.js';

const HeartbeatRequest = emptyMessage(Op.HEARTBEAT_REQ, 'HEARTBEAT_REQ');
const HeartbeatResponse = emptyMessage(Op.HEARTBEAT_RESP, 'HEARTBEAT_RESP');
const EMPTY = Buffer.alloc(0);
/** Received but not yet handled bytes above which reading pauses (a pipelining client waiting on fsyncs). */
const MAX_QUEUED_REQUEST_BYTES = 8 * 1_048_576;
/** How long a graceful close waits for the peer before destroying the socket. */
const CLOSE_GRACE_MS = 2_000;

export type { CloseReason };

export const SESSION_HANDSHAKE_CLOCK = 'handshake-clock';

export class ServerConnection implements ConnectionHandle, BudgetedConnection {
  readonly id: Buffer = randomBytes(16);
  readonly remoteAddress: string;
  private currentState: ConnectionState = 'new';
  readonly session = new Map<string, unknown>();
  closeReason: CloseReason | undefined;

  private readonly decoder: FrameDecoder;
  private readonly queue = new RequestQueue();
  private busy = false;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: (() => void) | undefined;
  private corked = false;
  private isClosed = false;
  private readonly watchdogs: ConnectionWatchdogs;
  private readonly handshake: HandshakeClock;
  private readonly closeListeners: Array<() => void | Promise<void>> = [];
  /** Replies still waiting on their work (fsync); later frames are written only after them, in request order. */
  private readonly replies: ReplyOrder;
  private reportedPending = 0;
  /** Socket bytes the kernel had not taken at the last uncork: the backlog, as opposed to this tick's writes. */
  private unsentAtUncork = 0;
  private readonly closedPromise: Promise<void>;
  private resolveClosed!: () => void;

  constructor(
    private readonly socket: Socket,
    private readonly broker: BrokerCore,
    private readonly registry: HandlerRegistry,
    private readonly budget?: SendBudget,
  ) {
    this.remoteAddress = socket.remoteAddress ?? 'unknown';
    this.replies = new ReplyOrder({
      writeNow: (buf) => this.writeNow(buf),
      replyFailed: (err, op, correl) => this.handlerFailed(err, op, correl),
      isClosed: () => this.isClosed,
    });
    this.decoder = new FrameDecoder(broker.config.maxFrameSize);
    this.closedPromise = new Promise((resolve) => (this.resolveClosed = resolve));
    this.watchdogs = new ConnectionWatchdogs(socket, broker.config, {
      isClosed: () => this.isClosed,
      isAuthenticated: () => this.state === 'authenticated',
      isHandshakePaused: () => this.handshake.paused,
      readDeadlineExceeded: (limitMs) =>
        this.fail(
          ErrorCode.INTERNAL,
          `read deadline exceeded: no frame within ${formatSeconds(limitMs)}`,
          'read-deadline',
        ),
      sendDeadlineExceeded: (pendingBytes, limitMs) => {
        this.broker.logger.warn('closing a connection: send deadline exceeded', {
          remote: this.remoteAddress,
          pendingBytes,
          limit: formatSeconds(limitMs),
        });
        this.teardown('send-deadline');
      },
      heartbeatTimedOut: (idleMs) =>
        this.fail(ErrorCode.INTERNAL, `no activity for ${formatSeconds(idleMs)}`, 'heartbeat-timeout'),
      sendHeartbeat: () => this.send(HeartbeatRequest, Buffer.from(randomUUID().replaceAll('-', ''), 'hex'), {}),
    });
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => {
      this.broker.logger.debug('connection socket error', { remote: this.remoteAddress, error: err.message });
      this.teardown('socket-error');
    });
    socket.on('close', () => this.teardown('peer-closed'));
    socket.on('end', () => this.teardown('peer-closed'));
    this.handshake = new HandshakeClock(broker.config.handshakeTimeoutMs, () =>
      this.fail(
        ErrorCode.BAD_PROTOCOL,
        `handshake not completed within ${formatSeconds(broker.config.handshakeTimeoutMs)}`,
        'handshake-timeout',
      ),
    );
    this.session.set(SESSION_HANDSHAKE_CLOCK, this.handshake);
    this.session.set(SESSION_ORDERED_REPLIES, {
      after: (work, reply, op, correl) => this.replies.after(work, reply, op, correl),
      settled: () => this.replies.settled(),
    } satisfies OrderedReplies);
    this.watchdogs.armRead();
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Unsent socket bytes plus frames held behind a reply that waits on its fsync. */
  get pendingSendBytes(): number {
    return this.socket.writableLength + this.replies.heldBytes;
  }

  /** Resolves once the socket has fully closed and close listeners ran. */
  get whenClosed(): Promise<void> {
    return this.closedPromise;
  }

  send<T>(codec: MessageCodec<T>, correl: Buffer, message: T): void {
    if (this.isClosed) return;
    this.write(encodeFrame(codec, correl, message));
  }

  sendRaw(frames: Buffer): void {
    if (this.isClosed) return;
    this.write(frames);
  }

  sendError(code: number, message: string, correl: Buffer): void {
    this.send(ErrorFrame, correl, { code, message: withoutServerPaths(message, this.broker.dataDir) });
  }

  /**
   * Resolves once everything queued so far, held replies included, reached the kernel. A socket destroyed with a
   * corked write in flight calls that write back without an error, so a callback after close counts as a failure.
   */
  async flushed(): Promise<void> {
    const held = this.replies.settled();
    if (held) await held;
    if (this.isClosed) throw new Error('connection closed');
    if (this.socket.writableLength === 0 && !this.corked) return;
    await new Promise<void>((resolve, reject) => {
      this.socket.write(EMPTY, (err) =>
        err || this.isClosed ? reject(err ?? new Error('connection closed')) : resolve(),
      );
    });
  }

  onClose(listener: () => void | Promise<void>): void {
    this.closeListeners.push(listener);
  }

  /** Handler-requested close: flush what is queued, then end the socket. */
  close(): void {
    this.endGracefully('handler-requested');
  }

  /** Broker shutdown: stop reading, let requests already received finish, flush, close. */
  async drainAndClose(): Promise<void> {
    if (!this.isClosed) {
      this.socket.pause();
      await this.idle;
      await this.replies.drained;
      this.endGracefully('broker-stopping');
    }
    await this.closedPromise;
  }

  get state(): ConnectionState {
    return this.currentState;
  }

  /** Handlers move the state forward; reaching `authenticated` stops the handshake watchdog and starts heartbeats. */
  set state(next: ConnectionState) {
    if (next === this.currentState) return;
    this.currentState = next;
    if (next === 'authenticated' && !this.isClosed) {
      this.handshake.stop();
      this.watchdogs.startHeartbeat();
    }
  }

  private write(buf: Buffer): void {
    if (this.replies.holding && !this.isClosed) {
      this.replies.hold(buf);
      this.reportPending();
      return;
    }
    this.writeNow(buf);
  }

  /** Tells the broker-wide budget what this connection holds; while bytes are unsent, again once they drain. */
  private reportPending(): void {
    if (!this.budget || this.isClosed) return;
    const bytes = this.pendingSendBytes;
    if (bytes === this.reportedPending) return;
    this.reportedPending = bytes;
    this.budget.report(this, bytes);
  }

  /** The broker-wide budget chose this connection (the one holding the most) to close. */
  shed(): void {
    this.teardown('pending_send_too_large');
  }

  private writeNow(buf: Buffer): void {
    if (this.isClosed) return;
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(() => {
        this.corked = false;
        this.socket.uncork();
        this.unsentAtUncork = this.socket.writableLength;
        if (this.isClosed || this.socket.writableLength === 0) return this.reportPending();
        if (!this.watchdogs.sendArmed) this.watchdogs.armSend();
        if (this.budget) this.socket.write(EMPTY, () => this.reportPending());
        this.reportPending();
      });
    }
    this.socket.write(buf);
    if (this.socket.writableLength > this.broker.config.maxPendingSendBytes) {
      this.broker.logger.warn('closing a connection whose peer does not read', { remote: this.remoteAddress });
      this.teardown('pending_send_too_large');
    }
  }

  private onData(chunk: Buffer): void {
    if (this.isClosed) return;
    let frames: Frame[];
    try {
      frames = this.decoder.push(chunk);
    } catch (err) {
      if (err instanceof FrameTooLargeError) {
        this.fail(
          ErrorCode.FRAME_TOO_LARGE,
          `frame of ${err.frameLength} bytes exceeds the maximum of ${err.maxFrameSize}`,
          'protocol-error',
        );
      } else {
        this.fail(ErrorCode.BAD_FRAME, 'frame shorter than header', 'protocol-error');
      }
      return;
    }
    if (frames.length === 0) return;
    this.watchdogs.lastFrameAt = Date.now();
    for (const frame of frames) {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- dispatch() can close the connection; TypeScript keeps the narrowing across calls (TypeScript#9998)
      if (this.isClosed) return;
      if (this.busy) {
        this.queue.push(frame);
        if (this.queue.bytes > MAX_QUEUED_REQUEST_BYTES) this.socket.pause();
      } else {
        const pending = this.dispatch(frame);
        if (pending) this.runQueue(pending);
      }
    }
  }

  /** Awaits `pending`, then handles queued frames in order until one is synchronous and the queue is empty. */
  private runQueue(pending: Promise<void>): void {
    this.busy = true;
    this.idle = new Promise((resolve) => (this.markIdle = resolve));
    const drain = async (): Promise<void> => {
      let current: Promise<void> | undefined = pending;
      for (;;) {
        if (current) await current;
        const next = this.queue.shift();
        if (!next || this.isClosed) break;
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- `isClosed` is changed during the await above; TypeScript keeps the narrowing across it (TypeScript#9998)
        if (this.queue.bytes <= MAX_QUEUED_REQUEST_BYTES / 2 && this.socket.isPaused() && !this.isClosed)
          this.socket.resume();
        current = this.dispatch(next);
      }
      this.queue.clear();
      this.busy = false;
      this.markIdle?.();
    };
    void drain();
  }

  /** Handles one frame; returns a promise only when the handler is still working. Never rejects. */
  private dispatch(frame: Frame): Promise<void> | undefined {
    const { op, correl } = frame;
    if (op === Op.HEARTBEAT_REQ) {
      this.send(HeartbeatResponse, correl, {});
      return undefined;
    }
    if (op === Op.HEARTBEAT_RESP) return undefined;
    if (op === Op.GOODBYE) {
      this.endGracefully('goodbye');
      return undefined;
    }
    const handler = this.registry.resolve(this.state, op);
    if (typeof handler !== 'function') {
      this.sendError(handler.code, handler.message, correl);
      return undefined;
    }
    const ctx: RequestContext<BrokerCore> = { broker: this.broker, conn: this, op, correl, payload: frame.payload };
    try {
      const result = handler(ctx);
      if (result instanceof Promise)
        return result.catch((err: unknown) => this.handlerFailed(err, op, correl)).then(() => this.backpressure());
    } catch (err) {
      this.handlerFailed(err, op, correl);
    }
    return this.backpressure();
  }

  /** The wait before the next request past half the send budget (dispatchPause), if any. */
  private backpressure(): Promise<void> | undefined {
    const writtenThisTick = this.corked ? this.socket.writableLength - this.unsentAtUncork : 0;
    return dispatchPause(this.broker.config.maxPendingSendBytes / 2, this.replies, writtenThisTick);
  }

  private handlerFailed(err: unknown, op: number, correl: Buffer): void {
    const reply = failureReply(err, this.broker.dataDir);
    if (reply.logged !== undefined) {
      this.broker.logger.error('request failed', { op: formatOp(op), remote: this.remoteAddress, error: reply.logged });
    }
    if (reply.close) this.fail(reply.code, reply.message, 'protocol-error');
    else this.sendError(reply.code, reply.message, correl);
  }

  /** Sends ERROR with the zero correl and closes, as every teardown error in wire.md §1 does. */
  private fail(code: number, message: string, reason: CloseReason): void {
    if (this.isClosed) return;
    this.writeNow(
      encodeFrame(ErrorFrame, ZERO_CORREL, { code, message: withoutServerPaths(message, this.broker.dataDir) }),
    );
    this.endGracefully(reason);
  }

  private stopTimers(): void {
    this.watchdogs.stop();
    this.handshake.stop();
  }

  private endGracefully(reason: CloseReason): void {
    if (this.isClosed) return;
    this.markClosed(reason);
    if (this.corked) {
      this.corked = false;
      this.socket.uncork();
    }
    // A stopping broker does not wait for the peer's FIN: once its own bytes and FIN are out the socket goes, or a
    // peer that keeps its side open would hold `stop()` for the whole grace period.
    if (reason === 'broker-stopping') this.socket.end(() => this.socket.destroy());
    else this.socket.end();
    const grace = setTimeout(() => this.socket.destroy(), CLOSE_GRACE_MS);
    this.socket.once('close', () => clearTimeout(grace));
  }

  private teardown(reason: CloseReason): void {
    if (!this.isClosed) this.markClosed(reason);
    this.socket.destroy();
  }

  private markClosed(reason: CloseReason): void {
    this.isClosed = true;
    this.closeReason = reason;
    this.budget?.remove(this);
    this.stopTimers();
    this.socket.pause();
    this.queue.clear();
    const listeners = this.closeListeners.splice(0);
    void (async () => {
      for (const listener of listeners) {
        try {
          await listener();
        } catch (err) {
          this.broker.logger.warn('close listener failed', { error: err instanceof Error ? err.message : String(err) });
        }
      }
      await this.idle;
      await this.replies.drained;
      if (!this.socket.closed) await new Promise<void>((resolve) => this.socket.once('close', () => resolve()));
      this.resolveClosed();
    })();
  }
}
