/**
 * The contract between the connection layer and the per-opcode handlers in handlers/. The connection decodes
 * framing and enforces the state machine; a handler decodes its payload, does the work and replies through the
 * connection. A handler signals failure by throwing `HandlerError(code, message)`: the connection turns it into an
 * ERROR frame with the request correl (and closes when `close` is set). A DecodeError thrown by a payload decoder
 * becomes ERR_BAD_FRAME the same way. Any other exception becomes ERR_INTERNAL and is logged.
 */
import type { MessageCodec } from '../protocol/message.js';

export class HandlerError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly close = false,
  ) {
    super(message);
    this.name = 'HandlerError';
  }
}

export type ConnectionState = 'new' | 'greeted' | 'authenticated';

/** What a handler may do with the connection that sent the request. */
export interface ConnectionHandle {
  /** Random per connection; JOIN_GROUP derives short member ids from its first 4 bytes. */
  readonly id: Buffer;
  readonly remoteAddress: string;
  state: ConnectionState;
  /** Queues one frame. Throws nothing; a connection over its send budget is closed by the connection layer. */
  send<T>(codec: MessageCodec<T>, correl: Buffer, message: T): void;
  /** Queues pre-encoded frame bytes (hot paths encode straight into one buffer). */
  sendRaw(frames: Buffer): void;
  sendError(code: number, message: string, correl: Buffer): void;
  /** Bytes queued but not yet written to the socket. */
  readonly pendingSendBytes: number;
  /** Resolves when everything queued so far has been handed to the kernel (or rejects when the socket closed). */
  flushed(): Promise<void>;
  readonly closed: boolean;
  close(): void;
  /** Per-connection state owned by handlers (consumer session, producer id, transaction, …), keyed by concern. */
  readonly session: Map<string, unknown>;
  /** Called once when the connection closes, for handlers to release what they hold (group membership, txns). */
  onClose(listener: () => void | Promise<void>): void;
}

export interface RequestContext<B> {
  broker: B;
  conn: ConnectionHandle;
  op: number;
  correl: Buffer;
  payload: Buffer;
}

export type RequestHandler<B> = (ctx: RequestContext<B>) => void | Promise<void>;
