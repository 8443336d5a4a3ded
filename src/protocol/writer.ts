import { EncodeError } from '../errors.js';
import { CORREL_BYTES, FRAME_HEADER_BYTES, FRAME_LENGTH_BYTES } from './limits.js';

const textEncoder = new TextEncoder();
const U64_MAX = 0xffff_ffff_ffff_ffffn;

/**
 * A growable big-endian writer. It writes straight into one buffer (doubling when full) so a frame is built
 * without intermediate copies; `finish()` returns a view of what was written.
 *
 * Every width refuses a value it cannot carry (EncodeError) instead of wrapping it: a negative, fractional, NaN or
 * too-large number, a bigint outside 0..2^64-1. The checks are one integer operation each (`(v & 0xff) === v`,
 * `(v >>> 0) === v`), cheap enough for the per-record loops of the batch encoders, so no width has an unchecked form.
 */
export class Writer {
  private buf: Buffer;
  private pos = 0;

  /** `into`: a buffer to write into from its start (the caller's to reuse), instead of a new one of `initialSize`. */
  constructor(initialSize = 256, into?: Buffer) {
    this.buf = into ?? Buffer.allocUnsafe(initialSize);
  }

  get length(): number {
    return this.pos;
  }

  /** The whole buffer written into (`finish()` is a view of its start): a caller reusing buffers keeps this one. */
  get backing(): Buffer {
    return this.buf;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** Makes room for `n` more bytes at once: an encoder that knows its size grows the buffer at most once. */
  reserve(n: number): this {
    this.ensure(n);
    return this;
  }

  u8(v: number): this {
    if ((v & 0xff) !== v) throw new EncodeError('u8', v);
    this.ensure(1);
    this.buf[this.pos++] = v;
    return this;
  }

  u16(v: number): this {
    if ((v & 0xffff) !== v) throw new EncodeError('u16', v);
    this.ensure(2);
    this.buf.writeUInt16BE(v, this.pos);
    this.pos += 2;
    return this;
  }

  /* u32 and u64 store bytes rather than call writeUInt32BE / writeBigUInt64BE: per-record fields of every batch
     frame and ack come through here, and those calls' argument checks (and the bigint split) cost more than the
     stores. A u64 below 2^53 (every offset and timestamp in practice) is split as a Number. */
  u32(v: number): this {
    if (v >>> 0 !== v) throw new EncodeError('u32', v);
    this.ensure(4);
    putU32(this.buf, this.pos, v);
    this.pos += 4;
    return this;
  }

  u64(v: bigint): this {
    if (v < 0n || v > U64_MAX) throw new EncodeError('u64', v);
    this.ensure(8);
    const n = Number(v);
    if (n <= Number.MAX_SAFE_INTEGER) {
      putU32(this.buf, this.pos, Math.floor(n / TWO_32));
      putU32(this.buf, this.pos + 4, n >>> 0);
    } else {
      this.buf.writeBigUInt64BE(v, this.pos);
    }
    this.pos += 8;
    return this;
  }

  /** A u64 given as a Number, as the produce hot path keeps offsets: a safe non-negative integer, else EncodeError. */
  u64Number(v: number): this {
    if (!Number.isSafeInteger(v) || v < 0) throw new EncodeError('u64', v);
    this.ensure(8);
    putU32(this.buf, this.pos, Math.floor(v / TWO_32));
    putU32(this.buf, this.pos + 4, v >>> 0);
    this.pos += 8;
    return this;
  }

  bytes(b: Uint8Array): this {
    const n = b.length;
    this.ensure(n);
    // A few bytes (a record key) copy faster in a loop than through the native `set` call.
    if (n <= SMALL_COPY_BYTES) {
      const buf = this.buf;
      const at = this.pos;
      for (let i = 0; i < n; i++) buf[at + i] = b[i]!;
    } else {
      this.buf.set(b, this.pos);
    }
    this.pos += n;
    return this;
  }

  /** A `str`: u32 byte length then the bytes (a JS string is written as UTF-8); a length past u32 is refused. */
  str(v: string | Uint8Array): this {
    if (typeof v !== 'string') {
      this.u32(v.length);
      return this.bytes(v);
    }
    // Worst case 3 bytes per UTF-16 unit; encode in place and patch the length. The length needs no check: V8 caps a
    // string at 2^29 - 24 units, so `written` is below 3 * 2^29 < 2^32.
    this.ensure(4 + v.length * 3);
    const { written } = textEncoder.encodeInto(v, this.buf.subarray(this.pos + 4));
    this.buf.writeUInt32BE(written, this.pos);
    this.pos += 4 + written;
    return this;
  }

  /** Overwrites a u32 already written at `at` (used to patch lengths). */
  patchU32(at: number, v: number): void {
    if (v >>> 0 !== v) throw new EncodeError('u32', v);
    this.buf.writeUInt32BE(v, at);
  }

  finish(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

/**
 * Starts a frame: reserves FrameLen, writes the op and correl. Call `endFrame` after the payload.
 * Layout: u32 FrameLen · u8 op · 16 bytes correl · payload; FrameLen counts everything after itself.
 */
export function beginFrame(w: Writer, op: number, correl: Uint8Array): number {
  if (correl.length !== CORREL_BYTES) throw new RangeError(`correl must be ${CORREL_BYTES} bytes`);
  const at = w.length;
  w.u32(0).u8(op).bytes(correl);
  return at;
}

export function endFrame(w: Writer, frameStart: number): void {
  w.patchU32(frameStart, w.length - frameStart - FRAME_LENGTH_BYTES);
}

export { FRAME_HEADER_BYTES };

const TWO_32 = 2 ** 32;
const SMALL_COPY_BYTES = 32;

function putU32(buf: Uint8Array, pos: number, v: number): void {
  buf[pos] = v >>> 24;
  buf[pos + 1] = v >>> 16;
  buf[pos + 2] = v >>> 8;
  buf[pos + 3] = v;
}
