/**
 * One TCP connection to a broker (wire.md §1): framing, a correlation map with request deadlines
 * (pending-requests.ts), pipelining and write backpressure. It knows no opcode beyond the few the transport itself handles (ERROR, OK, HEARTBEAT_*,
 * GOODBYE, pushed RECORD); everything else is a codec the caller passes in.
 *
 * Routing of incoming frames:
 *   HEARTBEAT_REQ (any correl)      answered at once with HEARTBEAT_RESP, same correl
 *   zero correl, RECORD             handed to the push handler (SUBSCRIBE)
 *   zero correl, ERROR              the broker is tearing the connection down: every pending request fails with it
 *   correl of a pending request     ERROR rejects it; a single-reply request resolves with the frame; a stream
 *                                   request collects frames until its terminator (OK)
 *   anything else                   dropped (a late reply to a request that already timed out, …)
 */
import net from 'node:net';
import { BrokerError, ConnectionError, CraterError, DecodeError, FrameTooLargeError } from '../../errors.js';
import { errorName } from '../../protocol/error-codes.js';
import { FrameDecoder, type Frame } from '../../protocol/frame-decoder.js';
import { CLIENT_MAX_FRAME_SIZE, DEFAULT_MAX_FRAME_SIZE, FRAME_LENGTH_BYTES } from '../../protocol/limits.js';
import { decodePayload, encodeFrame, type MessageCodec } from '../../protocol/message.js';
import { GoodbyeRequest, HeartbeatReply } from '../../protocol/messages/control.js';
import { ErrorFrame } from '../../protocol/messages/error.js';
import { Op, opName } from '../../protocol/opcodes.js';
import { Writer } from '../../protocol/writer.js';
import { formatAddress, toBrokerAddress, type BrokerAddress } from '../address.js';
import { FramePool } from './frame-pool.js';
import { PendingRequests, isZeroCorrel, newCorrel } from './pending-requests.js';

export { newCorrel };

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** How long close() waits for the broker to hang up after GOODBYE before destroying the socket. */
const CLOSE_GRACE_MS = 2_000;

export interface ConnectionOptions {
  connectTimeoutMs?: number;
  /** Default deadline of each request, from send to its last reply frame. */
  requestTimeoutMs?: number;
  /** Largest frame accepted from the broker (the reference client's 16 MiB). */
  maxFrameSize?: number;
  /** Largest frame this side sends; the broker's own limit (1 MiB by default) closes the connection on excess. */
  maxRequestFrameSize?: number;
}

export interface RequestOptions {
  timeoutMs?: number;
  /**
   * Streamed replies only: the most frames the reply may have, terminator included (default MAX_REPLY_FRAMES). A
   * broker that sends more gets the request rejected and the rest of its frames dropped, instead of growing memory.
   */
  maxFrames?: number;
  /** Initial encode buffer size, so a large request is written into one buffer without regrowth. */
  sizeHint?: number;
}

export type PushHandler = (frame: Frame) => void;

/** Frames one streamed reply may have by default: a legacy FETCH of 1,048,575 records and its OK. */
export const MAX_REPLY_FRAMES = 1_048_576;

/** The one place an ERROR code becomes an exception (wire.md §2.4 names, errors.ts class). */
export function brokerError(code: number, message: string): BrokerError {
  return new BrokerError(code, errorName(code), message);
}

export class Connection {
  readonly address: BrokerAddress;
  /** `host:port` as error messages name it. */
  readonly label: string;
  private readonly socket: net.Socket;
  private readonly decoder: FrameDecoder;
  private readonly pending: PendingRequests;
  private readonly requestTimeoutMs: number;
  private readonly maxRequestFrameSize: number;
  private pushHandler: PushHandler | undefined;
  private readonly closeListeners: ((error: Error | undefined) => void)[] = [];
  /** Frames held back for 'drain', each with the pooled buffer it was encoded into (frame-pool.ts), if any. */
  private writeQueue: { bytes: Buffer; pooled: Buffer | undefined }[] = [];
  private readonly framePool = new FramePool();
  private blocked = false;
  private writableWaiters: { resolve(): void; reject(e: Error): void }[] = [];
  private closing = false;
  private closeError: Error | undefined;
  private socketError: Error | undefined;
  private isClosed = false;
  private readonly closedPromise: Promise<void>;
  private resolveClosed!: () => void;

  /** Opens a TCP connection; a refusal, DNS failure or connect timeout is one ConnectionError naming the address. */
  static open(address: string | BrokerAddress, options: ConnectionOptions = {}): Promise<Connection> {
    const target = toBrokerAddress(address);
    const label = formatAddress(target);
    const timeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: target.host, port: target.port });
      const fail = (error: Error): void => {
        clearTimeout(timer);
        socket.destroy();
        const reason = (error as NodeJS.ErrnoException).code ?? error.message;
        reject(new ConnectionError(`cannot connect to ${label}: ${reason}`, { cause: error }));
      };
      const timer = setTimeout(() => fail(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
      socket.once('error', fail);
      socket.once('connect', () => {
        clearTimeout(timer);
        const connection = new Connection(socket, target, options);
        socket.off('error', fail);
        resolve(connection);
      });
    });
  }

  private constructor(socket: net.Socket, address: BrokerAddress, options: ConnectionOptions) {
    this.socket = socket;
    this.address = address;
    this.label = formatAddress(address);
    this.pending = new PendingRequests(this.label);
    this.decoder = new FrameDecoder(options.maxFrameSize ?? CLIENT_MAX_FRAME_SIZE);
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.maxRequestFrameSize = options.maxRequestFrameSize ?? DEFAULT_MAX_FRAME_SIZE;
    this.closedPromise = new Promise((resolve) => (this.resolveClosed = resolve));
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('drain', () => this.onDrain());
    socket.on('error', (error) => (this.socketError ??= error));
    socket.on('close', () => this.handleClose());
  }

  get closed(): boolean {
    return this.isClosed;
  }

  get pendingRequests(): number {
    return this.pending.size;
  }

  /** Bytes encoded but held back because the socket asked us to wait for 'drain'. */
  get queuedBytes(): number {
    let n = 0;
    for (const q of this.writeQueue) n += q.bytes.length;
    return n;
  }

  /** Receives zero-correl RECORD frames (push mode). Frames pushed while no handler is set are dropped. */
  setPushHandler(handler: PushHandler | undefined): void {
    this.pushHandler = handler;
  }

  /**
   * Stops reading from the socket (push consumers apply backpressure this way: the broker's push loop then waits
   * on its send queue). Heartbeats are not answered while paused, so a pause must stay well under the broker's 90 s.
   */
  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  /** Called once when the socket closes: with the reason, or undefined for a close this side asked for. */
  onClose(listener: (error: Error | undefined) => void): void {
    if (this.isClosed) listener(this.closing && !this.closeError ? undefined : this.closeReason());
    else this.closeListeners.push(listener);
  }

  /** Sends one request and resolves with its decoded single reply; an ERROR reply rejects with BrokerError. */
  async request<Req, Rep>(
    codec: MessageCodec<Req>,
    message: Req,
    replyCodec: MessageCodec<Rep>,
    options: RequestOptions = {},
  ): Promise<Rep> {
    const frame = (await this.exchange(codec, message, replyCodec.op, false, options)) as Frame;
    return decodePayload(replyCodec, frame.payload);
  }

  /**
   * Sends one request whose reply is several frames with its correl, ended by `endOp` (FETCH: RECORD ×n or one
   * RECORD_BATCH, then OK). Resolves with every frame, the terminator last; an ERROR rejects with BrokerError.
   */
  requestStream<Req>(codec: MessageCodec<Req>, message: Req, endOp: number = Op.OK, options: RequestOptions = {}) {
    return this.exchange(codec, message, endOp, true, options) as Promise<Frame[]>;
  }

  /** Sends a frame that gets no reply (GOODBYE, HEARTBEAT_RESP). */
  send<Req>(codec: MessageCodec<Req>, message: Req, correl: Buffer = newCorrel().bytes): void {
    if (this.isClosed || this.closing) throw this.closedError(opName(codec.op));
    this.write(encodeFrame(codec, correl, message));
  }

  /** Resolves once the socket accepts more bytes without buffering in user space; rejects if it closes first. */
  writable(): Promise<void> {
    if (this.isClosed) return Promise.reject(this.closedError('write'));
    if (!this.blocked) return Promise.resolve();
    return new Promise((resolve, reject) => this.writableWaiters.push({ resolve, reject }));
  }

  /** Sends GOODBYE, half-closes, and resolves when the socket is gone. Pending requests fail with ConnectionError. */
  async close(): Promise<void> {
    if (this.isClosed) return;
    if (!this.closing) {
      this.closing = true;
      try {
        this.write(encodeFrame(GoodbyeRequest, newCorrel().bytes, {}));
      } catch {
        // The socket is already failing; the close below still completes.
      }
      this.socket.end();
      const grace = setTimeout(() => this.socket.destroy(), CLOSE_GRACE_MS);
      void this.closedPromise.then(() => clearTimeout(grace));
    }
    await this.closedPromise;
  }

  /** Drops the connection at once, without GOODBYE. */
  destroy(): void {
    this.closing = true;
    this.socket.destroy();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private exchange<Req>(
    codec: MessageCodec<Req>,
    message: Req,
    endOp: number,
    stream: boolean,
    options: RequestOptions,
  ): Promise<Frame | Frame[]> {
    if (this.isClosed || this.closing) return Promise.reject(this.closedError(opName(codec.op)));
    const correl = this.pending.fresh();
    // Without a size hint a pooled buffer too small for the frame is outgrown once (the encoders reserve up front).
    const w = new Writer(options.sizeHint ?? 256, this.framePool.take(options.sizeHint));
    const bytes = encodeFrame(codec, correl.bytes, message, w);
    const frameLen = bytes.length - FRAME_LENGTH_BYTES;
    if (frameLen > this.maxRequestFrameSize) {
      this.framePool.give(w.backing);
      return Promise.reject(new FrameTooLargeError(frameLen, this.maxRequestFrameSize));
    }
    const timeoutMs = options.timeoutMs ?? this.requestTimeoutMs;
    const maxFrames = options.maxFrames ?? MAX_REPLY_FRAMES;
    return new Promise((resolve, reject) => {
      this.pending.add(
        correl,
        { op: codec.op, endOp, stream: stream ? [] : undefined, maxFrames, resolve, reject },
        timeoutMs,
      );
      this.write(bytes, w.backing);
    });
  }

  /** `pooled`: the buffer `bytes` views, back to the frame pool once the socket reports the write done. */
  private write(bytes: Buffer, pooled?: Buffer): void {
    if (this.blocked) {
      this.writeQueue.push({ bytes, pooled });
      return;
    }
    if (!this.socketWrite(bytes, pooled)) this.blocked = true;
  }

  /** socket.write, handing `pooled` back to the pool once the write is done; false where the socket wants a drain. */
  private socketWrite(bytes: Buffer, pooled: Buffer | undefined): boolean {
    if (pooled === undefined) return this.socket.write(bytes);
    return this.socket.write(bytes, (err) => {
      if (!err) this.framePool.give(pooled);
    });
  }

  private onDrain(): void {
    this.blocked = false;
    while (this.writeQueue.length > 0 && !this.blocked) {
      const next = this.writeQueue.shift()!;
      if (!this.socketWrite(next.bytes, next.pooled)) this.blocked = true;
    }
    if (this.blocked) return;
    const waiters = this.writableWaiters;
    this.writableWaiters = [];
    for (const w of waiters) w.resolve();
  }

  private onData(chunk: Buffer): void {
    let frames: Frame[];
    try {
      frames = this.decoder.push(chunk);
    } catch (cause) {
      this.closeError ??= new ConnectionError(`bad frame from ${this.label}: ${(cause as Error).message}`, { cause });
      this.socket.destroy();
      return;
    }
    for (const frame of frames) this.dispatch(frame);
  }

  private dispatch(frame: Frame): void {
    if (frame.op === Op.HEARTBEAT_REQ) {
      if (!this.closing && !this.isClosed) this.write(encodeFrame(HeartbeatReply, frame.correl, {}));
      return;
    }
    if (isZeroCorrel(frame.correl)) {
      if (frame.op === Op.RECORD) this.pushHandler?.(frame);
      else if (frame.op === Op.ERROR) this.failAll((this.closeError ??= this.errorFromFrame(frame)));
      return;
    }
    const pending = this.pending.get(frame.correl);
    if (!pending) return;
    if (frame.op === Op.ERROR) {
      this.pending.delete(frame.correl);
      pending.reject(this.errorFromFrame(frame));
    } else if (pending.stream) {
      if (frame.op !== pending.endOp && pending.stream.length + 1 >= pending.maxFrames) {
        this.pending.delete(frame.correl);
        pending.reject(
          new ConnectionError(
            `${this.label} sent more than ${pending.maxFrames} frames in reply to ${opName(pending.op)}`,
          ),
        );
        return;
      }
      pending.stream.push(frame);
      if (frame.op === pending.endOp) {
        this.pending.delete(frame.correl);
        pending.resolve(pending.stream);
      }
    } else {
      this.pending.delete(frame.correl);
      if (frame.op === pending.endOp) pending.resolve(frame);
      else pending.reject(new DecodeError('op', 0, `${opName(frame.op)} is not a reply to ${opName(pending.op)}`));
    }
  }

  private errorFromFrame(frame: Frame): CraterError {
    try {
      const { code, message } = decodePayload(ErrorFrame, frame.payload);
      return brokerError(code, message);
    } catch (error) {
      return error as CraterError;
    }
  }

  private failAll(error: Error): void {
    this.pending.failAll(error);
  }

  private closeReason(): Error {
    if (this.closeError) return this.closeError;
    if (this.closing) return new ConnectionError(`connection to ${this.label} was closed by the client`);
    const why = this.socketError
      ? `: ${(this.socketError as NodeJS.ErrnoException).code ?? this.socketError.message}`
      : '';
    return new ConnectionError(`connection to ${this.label} closed${why}`, { cause: this.socketError });
  }

  private closedError(what: string): ConnectionError {
    return new ConnectionError(`${what}: connection to ${this.label} is closed`);
  }

  private handleClose(): void {
    this.isClosed = true;
    this.writeQueue = [];
    const reason = this.closeReason();
    this.failAll(reason);
    for (const w of this.writableWaiters) w.reject(reason);
    this.writableWaiters = [];
    const report = this.closing && !this.closeError ? undefined : reason;
    for (const listener of this.closeListeners.splice(0)) listener(report);
    this.resolveClosed();
  }
}
