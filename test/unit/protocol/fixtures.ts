/** Loads the JSON vectors under fixtures/: "<digits>n" becomes a bigint, "utf8:<text>" a Buffer, hex loses spaces. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { DecodeError } from '../../../src/errors.js';
import { FrameDecoder } from '../../../src/protocol/frame-decoder.js';
import { type MessageCodec, ZERO_CORREL, decodePayload, encodeFrame } from '../../../src/protocol/message.js';
import { replyCodecs, requestCodecs } from '../../../src/protocol/registry.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures');

function revive(_key: string, v: unknown): unknown {
  if (typeof v !== 'string') return v;
  if (/^\d+n$/.test(v)) return BigInt(v.slice(0, -1));
  if (v.startsWith('utf8:')) return Buffer.from(v.slice(5), 'utf8');
  return v;
}

export function loadFixture<T>(relative: string): T {
  return JSON.parse(readFileSync(path.join(root, relative), 'utf8'), revive) as T;
}

export function hex(s: string): Buffer {
  return Buffer.from(s.replace(/\s+/g, ''), 'hex');
}

export const SEQ_CORREL = Buffer.from(Array.from({ length: 16 }, (_, i) => i + 1));

export { prng } from '../../helpers/prng.js';

/** One golden frame: a registry codec by name, the correlation id (zero or SEQ_CORREL), the message, its bytes. */
export interface FrameVector {
  name: string;
  codec: string;
  correl: 'zero' | 'seq';
  message: unknown;
  hex: string;
}

export function frameVectors(relative: string): FrameVector[] {
  return loadFixture<{ vectors: FrameVector[] }>(relative).vectors;
}

const codecs = { ...requestCodecs, ...replyCodecs } as unknown as Record<string, MessageCodec<unknown>>;

/** The vector's message encodes to exactly its bytes, and the bytes frame and decode back to its op, id and message. */
export function expectFrameVector(v: FrameVector): void {
  const codec = codecs[v.codec];
  expect(codec, `no codec named ${v.codec}`).toBeDefined();
  const correl = v.correl === 'zero' ? ZERO_CORREL : SEQ_CORREL;
  expect(encodeFrame(codec!, correl, v.message).toString('hex')).toBe(hex(v.hex).toString('hex'));
  const [frame] = new FrameDecoder().push(hex(v.hex));
  expect(frame!.op).toBe(codec!.op);
  expect(frame!.correl.equals(correl)).toBe(true);
  expect(decodePayload(codec!, frame!.payload)).toEqual(v.message);
}

/** Runs `fn` and returns the DecodeError it throws; anything else (or nothing) fails the test. */
export function expectDecodeError(fn: () => unknown): DecodeError {
  try {
    fn();
  } catch (err) {
    if (err instanceof DecodeError) return err;
    throw err;
  }
  throw new Error('expected a DecodeError');
}
