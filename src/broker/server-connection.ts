/**
 * One client connection: framing, the state machine (wire.md §1), in-order dispatch, watchdogs (their timers are in
 * connection-watchdogs.ts) and a bounded send queue. Frames are decoded as they arrive; a request whose handler
 * returns a promise holds back the ones behind it (a PRODUCE awaiting fsync is never overtaken), while synchronous
 * handlers run without any promise overhead. Replies written within one tick are corked into one writev.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { DecodeError, FrameTooLargeError } from '../errors.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { type Frame, FrameDecoder } from '../protocol/frame-decoder.js';
import { type MessageCodec, ZERO_CORREL, emptyMessage, encodeFrame } from '../protocol/message.js';
import { ErrorFrame } from '../protocol/messages/error.js';
import { Op, formatOp } from '../protocol/opcodes.js';
import { type BrokerCore, type OrderedReplies, SESSION_ORDERED_REPLIES } from './core.js';
import { type ConnectionHandle, type ConnectionState, HandlerError, type RequestContext } from './handler.js';
import { type HandlerRegistry, isAllowedIn } from './handler-registry.js';
import { ConnectionWatchdogs, formatSeconds } from './connection-watchdogs.js';
import { HandshakeClock } from './handshake-clock.js';

const HeartbeatRequest = emptyMessage(Op.HEARTBEAT_REQ, 'HEARTBEAT_REQ');
const HeartbeatResponse = emptyMessage(Op.HEARTBEAT_RESP, 'HEARTBEAT_RESP');
const EMPTY = Buffer.alloc(0);
/** Received but not yet handled bytes above which reading pauses (a pipelining client waiting on fsyncs). */
const MAX_QUEUED_REQUEST_BYTES = 8 * 1_048_576;
/** How long a graceful close waits for the peer before destroying the socket. */
const CLOSE_GRACE_MS = 2_000;

export type CloseReason =
  | 'goodbye'
  | 'peer-closed'
  | 'socket-error'
  | 'protocol-error'
  | 'handshake-timeout'
  | 'read-deadline'
  | 'heartbeat-timeout'
  | 'pending_send_too_large'
  | 'send-deadline'
  | 'handler-requested'
  | 'broker-stopping';

export const SESSION_HANDSHAKE_CLOCK = 'handshake-clock';
const MAX_DEFERRED_REPLIES = 1_024;

export class ServerConnection implements ConnectionHandle {
  readonly id: Buffer = randomBytes(16);
  readonly remoteAddress: string;
  private currentState: ConnectionState = 'new';
  readonly session = new Map<string, unknown>();
  closeReason: CloseReason | undefined;

  private readonly decoder: FrameDecoder;
  private readonly queue: Frame[] = [];
  private queuedBytes = 0;
  private busy = false;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: (() => void) | undefined;
  private corked = false;
  private isClosed = false;
  private readonly watchdogs: ConnectionWatchdogs;
  private readonly handshake: HandshakeClock;
  private readonly closeListeners: Array<() => void | Promise<void>> = [];
  /** Replies still waiting on their work (fsync); later frames are written only after them, in request order. */
  private deferred = 0;
  private replyTail: Promise<void> = Promise.resolve();
  private inDeferredReply = false;
  private readonly closedPromise: Promise<void>;
  private resolveClosed!: () => void;

  constructor(
    private readonly socket: Socket,
    private readonly broker: BrokerCore,
    private readonly registry: HandlerRegistry,
  ) {
    this.remoteAddress = socket.remoteAddress ?? 'unknown';
    this.decoder = new FrameDecoder(broker.config.maxFrameSize);
    this.closedPromise = new Promise((resolve) => (this.resolveClosed = resolve));
    this.watchdogs = new ConnectionWatchdogs(socket, broker.config, {
      isClosed: () => this.isClosed,
      isAuthenticated: () => this.state === 'authenticated',
      isHandshakePaused: () => this.handshake.paused,
      readDeadlineExceeded: (limitMs) =>
        this.fail(ErrorCode.INTERNAL, `read deadline exceeded: no frame within ${formatSeconds(limitMs)}`, 'read-deadline'),
      sendDeadlineExceeded: (pendingBytes, limitMs) => {
        this.broker.logger.warn('closing a connection: send deadline exceeded', { remote: this.remoteAddress, pendingBytes, limit: formatSeconds(limitMs) });
        this.teardown('send-deadline');
      },
      heartbeatTimedOut: (idleMs) => this.fail(ErrorCode.INTERNAL, `no activity for ${formatSeconds(idleMs)}`, 'heartbeat-timeout'),
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
      this.fail(ErrorCode.BAD_PROTOCOL, `handshake not completed within ${formatSeconds(broker.config.handshakeTimeoutMs)}`, 'handshake-timeout'),
    );
    this.session.set(SESSION_HANDSHAKE_CLOCK, this.handshake);
    this.session.set(SESSION_ORDERED_REPLIES, { after: this.after.bind(this) } satisfies OrderedReplies);
    this.watchdogs.armRead();
  }

  get closed(): boolean {
    return this.isClosed;
  }

  get pendingSendBytes(): number {
    return this.socket.writableLength;
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
    this.send(ErrorFrame, correl, { code, message });
  }

  flushed(): Promise<void> {
    if (this.isClosed) return Promise.reject(new Error('connection closed'));
    if (this.socket.writableLength === 0 && !this.corked) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.socket.write(EMPTY, (err) => (err ? reject(err) : resolve()));
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
      await this.replyTail;
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

  /**
   * Lets a handler finish without holding back the frames behind it while its reply waits on `work` (a produce's
   * fsync): the next PRODUCE appends at once and the group committer shares one fsync between them. Replies still
   * leave in request order. Past MAX_DEFERRED_REPLIES the returned promise makes dispatch wait, bounding memory.
   */
  private after<T>(work: Promise<T>, reply: (value: T) => void, op: number, correl: Buffer): Promise<void> | undefined {
    this.deferred++;
    // Handled below once the earlier replies are out; this keeps an early rejection from counting as unhandled.
    work.catch(() => undefined);
    const step = this.replyTail
      .then(() => work)
      .then(
        (value) => {
          this.inDeferredReply = true;
          try {
            reply(value);
          } finally {
            this.inDeferredReply = false;
          }
        },
        (err: unknown) => {
          this.inDeferredReply = true;
          try {
            this.handlerFailed(err, op, correl);
          } finally {
            this.inDeferredReply = false;
          }
        },
      )
      .finally(() => {
        this.deferred--;
      });
    this.replyTail = step;
    return this.deferred > MAX_DEFERRED_REPLIES ? step : undefined;
  }

  private write(buf: Buffer): void {
    if (this.deferred > 0 && !this.inDeferredReply && !this.isClosed) {
      this.replyTail = this.replyTail.then(() => this.writeNow(buf));
      return;
    }
    this.writeNow(buf);
  }

  private writeNow(buf: Buffer): void {
    if (this.isClosed) return;
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(() => {
        this.corked = false;
        this.socket.uncork();
        if (this.socket.writableLength > 0 && !this.watchdogs.sendArmed && !this.isClosed) this.watchdogs.armSend();
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
        this.fail(ErrorCode.FRAME_TOO_LARGE, `frame of ${err.frameLength} bytes exceeds the maximum of ${err.maxFrameSize}`, 'protocol-error');
      } else {
        this.fail(ErrorCode.BAD_FRAME, 'frame shorter than header', 'protocol-error');
      }
      return;
    }
    if (frames.length === 0) return;
    this.watchdogs.lastFrameAt = Date.now();
    for (const frame of frames) {
      if (this.isClosed) return;
      if (this.busy) {
        this.queue.push(frame);
        this.queuedBytes += frame.payload.length + 21;
        if (this.queuedBytes > MAX_QUEUED_REQUEST_BYTES) this.socket.pause();
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
        this.queuedBytes -= next.payload.length + 21;
        if (this.queuedBytes <= MAX_QUEUED_REQUEST_BYTES / 2 && this.socket.isPaused() && !this.isClosed) this.socket.resume();
        current = this.dispatch(next);
      }
      this.queue.length = 0;
      this.queuedBytes = 0;
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
    const handler = this.registry.get(op);
    if (!handler) {
      this.sendError(ErrorCode.UNKNOWN_OP, formatOp(op), correl);
      return undefined;
    }
    if (!isAllowedIn(this.state, op)) {
      this.sendError(ErrorCode.BAD_FRAME, `${formatOp(op)} not allowed in state ${this.state}`, correl);
      return undefined;
    }
    const ctx: RequestContext<BrokerCore> = { broker: this.broker, conn: this, op, correl, payload: frame.payload };
    try {
      const result = handler(ctx);
      if (result instanceof Promise) return result.catch((err: unknown) => this.handlerFailed(err, op, correl));
    } catch (err) {
      this.handlerFailed(err, op, correl);
    }
    return undefined;
  }

  private handlerFailed(err: unknown, op: number, correl: Buffer): void {
    if (err instanceof HandlerError) {
      if (err.close) this.fail(err.code, err.message, 'protocol-error');
      else this.sendError(err.code, err.message, correl);
    } else if (err instanceof DecodeError) {
      this.sendError(ErrorCode.BAD_FRAME, err.message, correl);
    } else {
      const message = err instanceof Error ? err.message : String(err);
      this.broker.logger.error('request failed', { op: formatOp(op), remote: this.remoteAddress, error: message });
      this.sendError(ErrorCode.INTERNAL, message, correl);
    }
  }

  /** Sends ERROR with the zero correl and closes, as every teardown error in wire.md §1 does. */
  private fail(code: number, message: string, reason: CloseReason): void {
    if (this.isClosed) return;
    this.writeNow(encodeFrame(ErrorFrame, ZERO_CORREL, { code, message }));
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
    this.stopTimers();
    this.socket.pause();
    this.queue.length = 0;
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
      await this.replyTail;
      if (!this.socket.closed) await new Promise<void>((resolve) => this.socket.once('close', () => resolve()));
      this.resolveClosed();
    })();
  }
}
