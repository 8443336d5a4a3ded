import { Reader } from './reader.js';
import { Writer, beginFrame, endFrame } from './writer.js';

/**
 * One frame's payload codec: encode and decode both, since crater owns both ends. Decoders read the fields they
 * know and ignore any bytes after them (wire.md §13.1).
 */
export interface MessageCodec<T> {
  readonly op: number;
  readonly name: string;
  encode(w: Writer, message: T): void;
  decode(r: Reader): T;
}

export function defineMessage<T>(codec: MessageCodec<T>): MessageCodec<T> {
  return codec;
}

/** A frame with an empty payload (OK, GOODBYE, HEARTBEAT_REQ, LIST_TOPICS, …). */
export function emptyMessage(op: number, name: string): MessageCodec<Record<string, never>> {
  return defineMessage({
    op,
    name,
    encode() {},
    decode() {
      return {};
    },
  });
}

/** Encodes a whole frame (length prefix, op, correl, payload). Pass a Writer to append several frames to one buffer. */
export function encodeFrame<T>(codec: MessageCodec<T>, correl: Uint8Array, message: T, w?: Writer): Buffer {
  const out = w ?? new Writer(64);
  const start = beginFrame(out, codec.op, correl);
  codec.encode(out, message);
  endFrame(out, start);
  return w ? out.finish().subarray(start) : out.finish();
}

/** Decodes a payload; DecodeError offsets are relative to the payload start. */
export function decodePayload<T>(codec: MessageCodec<T>, payload: Buffer): T {
  return codec.decode(new Reader(payload));
}

/** Encodes just the payload bytes. */
export function encodePayload<T>(codec: MessageCodec<T>, message: T): Buffer {
  const w = new Writer(64);
  codec.encode(w, message);
  return w.finish();
}

export const ZERO_CORREL: Buffer = Buffer.alloc(16);
