import { describe, expect, it } from 'vitest';
import { DecodeError, FrameTooLargeError } from '../../../src/errors.js';
import { type Frame, FrameDecoder } from '../../../src/protocol/frame-decoder.js';
import { encodeFrame } from '../../../src/protocol/message.js';
import { ProduceRequest } from '../../../src/protocol/messages/produce.js';
import { Writer } from '../../../src/protocol/writer.js';
import { SEQ_CORREL, prng } from './fixtures.js';

/** A str field, spelled out: u32 big-endian length, then the bytes. */
function strHex(text: string): string {
  return Buffer.byteLength(text).toString(16).padStart(8, '0') + Buffer.from(text).toString('hex');
}

/** SEQ_CORREL spelled out: the bytes 0x01 to 0x10. */
const CORREL_HEX = '0102030405060708090a0b0c0d0e0f10';

interface Summary {
  op: number;
  correl: string;
  payload: string;
}

/**
 * Three frames of different sizes back to back, and what the decoder should return for them. The expected op,
 * correlation id and payloads are written out from the PRODUCE layout (u8 codec · str topic · str key · str value),
 * not taken from the encoder or the decoder under test.
 */
function stream(): { bytes: Buffer; expected: Summary[] } {
  const w = new Writer();
  const values = ['v', 'x'.repeat(300), ''];
  for (const v of values) {
    const message = { codec: 0, topic: 'orders', key: Buffer.from('k'), value: Buffer.from(v) };
    encodeFrame(ProduceRequest, SEQ_CORREL, message, w);
  }
  const bytes = Buffer.from(w.finish());
  const expected = values.map((v) => ({
    op: 0x03,
    correl: CORREL_HEX,
    payload: '00' + strHex('orders') + strHex('k') + strHex(v),
  }));
  return { bytes, expected };
}

function summarise(frames: Frame[]): Summary[] {
  return frames.map((f) => ({ op: f.op, correl: f.correl.toString('hex'), payload: f.payload.toString('hex') }));
}

function frameOfLength(frameLen: number): Buffer {
  const b = Buffer.alloc(4 + frameLen);
  b.writeUInt32BE(frameLen, 0);
  b[4] = 0x0b;
  return b;
}

describe('FrameDecoder', () => {
  it('returns several frames from one chunk, with op, correl and payload', () => {
    const { bytes, expected } = stream();
    expect(expected).toHaveLength(3);
    const frames = new FrameDecoder().push(bytes);
    expect(summarise(frames)).toEqual(expected);
    expect(frames.every((f) => f.op === ProduceRequest.op && f.correl.equals(SEQ_CORREL))).toBe(true);
    // The stream is the frames' own bytes: FrameLen · op · correl · payload each, nothing between them.
    const framed = expected.map((e) => {
      const body = '03' + CORREL_HEX + e.payload;
      return (body.length / 2).toString(16).padStart(8, '0') + body;
    });
    expect(bytes.toString('hex')).toBe(framed.join(''));
    expect(frames[1]!.payload.length).toBe(1 + 10 + 5 + 304);
  });

  it('assembles the same frames fed one byte at a time', () => {
    const { bytes, expected } = stream();
    const d = new FrameDecoder();
    const got: Frame[] = [];
    for (let i = 0; i < bytes.length; i++) got.push(...d.push(bytes.subarray(i, i + 1)));
    expect(summarise(got)).toEqual(expected);
    expect(d.pendingBytes).toBe(0);
  });

  it('assembles the same frames at random split points (seeded)', () => {
    const { bytes, expected } = stream();
    const rand = prng(0xc0ffee);
    for (let round = 0; round < 200; round++) {
      const d = new FrameDecoder();
      const got: Frame[] = [];
      let at = 0;
      while (at < bytes.length) {
        const n = 1 + Math.floor(rand() * 64);
        got.push(...d.push(bytes.subarray(at, at + n)));
        at += n;
      }
      expect(summarise(got)).toEqual(expected);
    }
  });

  it('keeps a partial frame pending until its last byte arrives', () => {
    const { bytes } = stream();
    const d = new FrameDecoder();
    expect(d.push(bytes.subarray(0, 10))).toEqual([]);
    expect(d.pendingBytes).toBe(10);
  });

  it('accepts a frame of exactly the maximum size', () => {
    const frames = new FrameDecoder(1024).push(frameOfLength(1024));
    expect(frames).toHaveLength(1);
    expect(frames[0]!.payload.length).toBe(1024 - 17);
  });

  it('rejects max + 1 with FrameTooLargeError from the prefix alone, and stays failed', () => {
    const d = new FrameDecoder(1024);
    const prefix = frameOfLength(1025).subarray(0, 4);
    expect(() => d.push(prefix)).toThrow(FrameTooLargeError);
    expect(() => d.push(Buffer.alloc(0))).toThrow(FrameTooLargeError);
  });

  it('rejects a frame claiming 4 GiB without waiting for (or allocating) its body', () => {
    const d = new FrameDecoder();
    let err: unknown;
    try {
      d.push(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x03]));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FrameTooLargeError);
    expect((err as FrameTooLargeError).frameLength).toBe(0xffffffff);
    expect(d.pendingBytes).toBe(5);
  });

  it('rejects FrameLen 0 and FrameLen 16 as shorter than the header', () => {
    for (const len of [0, 16]) {
      const prefix = Buffer.alloc(4);
      prefix.writeUInt32BE(len, 0);
      expect(() => new FrameDecoder().push(prefix)).toThrow(DecodeError);
    }
    expect(new FrameDecoder().push(frameOfLength(17))[0]!.payload.length).toBe(0);
  });
});
