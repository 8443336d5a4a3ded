/**
 * A deliberately tiny test client over raw TCP: sends encoded frames (or arbitrary bytes) and collects decoded
 * frames, so broker tests do not depend on the real client. Frames are matched by correl; push and teardown frames
 * (zero correl) are collected too.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { type Frame, FrameDecoder } from '../../src/protocol/frame-decoder.js';
import { CLIENT_MAX_FRAME_SIZE, PROTOCOL_VERSION } from '../../src/protocol/limits.js';
import { type MessageCodec, decodePayload, encodeFrame } from '../../src/protocol/message.js';
import { AuthRequest } from '../../src/protocol/messages/auth.js';
import { ErrorFrame, type ErrorReply } from '../../src/protocol/messages/error.js';
import { HelloRequest } from '../../src/protocol/messages/hello.js';
import { Op } from '../../src/protocol/opcodes.js';

export class RawClient {
  readonly frames: Frame[] = [];
  closed = false;
  private readonly decoder = new FrameDecoder(CLIENT_MAX_FRAME_SIZE);
  private waiters: Array<() => void> = [];

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      for (const f of this.decoder.push(chunk))
        this.frames.push({ op: f.op, correl: Buffer.from(f.correl), payload: Buffer.from(f.payload) });
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  static connect(port: number, host = '127.0.0.1'): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, host, () => {
        socket.off('error', reject);
        resolve(new RawClient(socket));
      });
      socket.once('error', reject);
    });
  }

  /** Connects from a chosen local address (per-IP limits); rejects with EADDRNOTAVAIL where it is not local. */
  static connectFrom(port: number, localAddress: string, host = '127.0.0.1'): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host, localAddress }, () => {
        socket.off('error', reject);
        resolve(new RawClient(socket));
      });
      socket.once('error', reject);
    });
  }

  /** A connected client that completed HELLO and AUTH. */
  static async authenticated(port: number, username = 'u', password = 'p'): Promise<RawClient> {
    const c = await RawClient.connect(port);
    await c.request(HelloRequest, { version: PROTOCOL_VERSION });
    const reply = await c.request(AuthRequest, { username, password });
    if (reply.op !== Op.AUTH_OK) throw new Error(`AUTH failed: ${JSON.stringify(c.error(reply))}`);
    return c;
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const fn of w) fn();
  }

  send<T>(codec: MessageCodec<T>, message: T, correl: Buffer = randomBytes(16)): Buffer {
    this.socket.write(encodeFrame(codec, correl, message));
    return correl;
  }

  /** Writes a frame with any op and payload. */
  sendFrame(op: number, payload: Buffer = Buffer.alloc(0), correl: Buffer = randomBytes(16)): Buffer {
    const head = Buffer.alloc(21);
    head.writeUInt32BE(17 + payload.length, 0);
    head[4] = op;
    correl.copy(head, 5);
    this.socket.write(Buffer.concat([head, payload]));
    return correl;
  }

  writeRaw(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** Sends and waits for the first reply with the same correl. */
  async request<T>(codec: MessageCodec<T>, message: T, timeoutMs = 10_000): Promise<Frame> {
    const correl = this.send(codec, message);
    return this.waitFor((f) => f.correl.equals(correl), timeoutMs);
  }

  async requestFrame(op: number, payload?: Buffer, timeoutMs = 10_000): Promise<Frame> {
    const correl = this.sendFrame(op, payload);
    return this.waitFor((f) => f.correl.equals(correl), timeoutMs);
  }

  /** Waits (polling on arrivals, up to a deadline) for a frame matching `pred`, and removes it. */
  async waitFor(pred: (f: Frame) => boolean, timeoutMs = 10_000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.frames.findIndex(pred);
      if (i >= 0) return this.frames.splice(i, 1)[0]!;
      if (this.closed) throw new Error('connection closed while waiting for a frame');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for a frame');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Waits until the broker closed the connection. */
  async waitClosed(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for the connection to close');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  decode<T>(codec: MessageCodec<T>, frame: Frame): T {
    if (frame.op !== codec.op)
      throw new Error(`expected ${codec.name}, got op 0x${frame.op.toString(16)} ${JSON.stringify(this.error(frame))}`);
    return decodePayload(codec, frame.payload);
  }

  error(frame: Frame): ErrorReply | undefined {
    return frame.op === Op.ERROR ? decodePayload(ErrorFrame, frame.payload) : undefined;
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.destroy();
    });
  }
}
