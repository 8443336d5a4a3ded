import { DecodeError, FrameTooLargeError } from '../errors.js';
import { CORREL_BYTES, DEFAULT_MAX_FRAME_SIZE, FRAME_HEADER_BYTES, FRAME_LENGTH_BYTES } from './limits.js';

/** One frame off the wire: `payload` and `correl` are views into the received bytes. */
export interface Frame {
  op: number;
  correl: Buffer;
  payload: Buffer;
}

/**
 * Incremental framing over arbitrary chunk boundaries (wire.md §1). A frame is assembled only after its length
 * prefix passed the max-frame check, so a prefix claiming 4 GiB allocates nothing; whole frames inside one chunk
 * are returned as zero-copy views. After an error the decoder is poisoned: the stream cannot be resynchronised.
 */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private failed: Error | undefined;

  constructor(readonly maxFrameSize: number = DEFAULT_MAX_FRAME_SIZE) {}

  /** Bytes received but not yet part of a returned frame. */
  get pendingBytes(): number {
    return this.buffered;
  }

  /** Feeds a chunk; returns the frames it completed. Throws FrameTooLargeError or DecodeError on a bad prefix. */
  push(chunk: Buffer): Frame[] {
    if (this.failed) throw this.failed;
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    const frames: Frame[] = [];
    while (this.buffered >= FRAME_LENGTH_BYTES) {
      const frameLen = this.peekLength();
      if (frameLen > this.maxFrameSize) {
        this.failed = new FrameTooLargeError(frameLen, this.maxFrameSize);
        throw this.failed;
      }
      if (frameLen < FRAME_HEADER_BYTES) {
        this.failed = new DecodeError('FrameLen', 0, `frame shorter than header (${frameLen} < ${FRAME_HEADER_BYTES})`);
        throw this.failed;
      }
      const total = FRAME_LENGTH_BYTES + frameLen;
      if (this.buffered < total) break;
      const bytes = this.take(total);
      frames.push({
        op: bytes[FRAME_LENGTH_BYTES]!,
        correl: bytes.subarray(FRAME_LENGTH_BYTES + 1, FRAME_LENGTH_BYTES + 1 + CORREL_BYTES),
        payload: bytes.subarray(FRAME_LENGTH_BYTES + FRAME_HEADER_BYTES),
      });
    }
    return frames;
  }

  private peekLength(): number {
    const first = this.chunks[0]!;
    if (first.length >= FRAME_LENGTH_BYTES) return first.readUInt32BE(0);
    const head = Buffer.allocUnsafe(FRAME_LENGTH_BYTES);
    let filled = 0;
    for (const c of this.chunks) {
      const n = Math.min(c.length, FRAME_LENGTH_BYTES - filled);
      c.copy(head, filled, 0, n);
      filled += n;
      if (filled === FRAME_LENGTH_BYTES) break;
    }
    return head.readUInt32BE(0);
  }

  /** Removes `n` bytes from the front; a view when they sit in one chunk, else one copy. */
  private take(n: number): Buffer {
    this.buffered -= n;
    const first = this.chunks[0]!;
    if (first.length >= n) {
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const c = this.chunks[0]!;
      const want = n - filled;
      if (c.length <= want) {
        c.copy(out, filled);
        filled += c.length;
        this.chunks.shift();
      } else {
        c.copy(out, filled, 0, want);
        this.chunks[0] = c.subarray(want);
        filled += want;
      }
    }
    return out;
  }
}
