import { DecodeError } from '../errors.js';
import { Caps } from './limits.js';

/**
 * A strict big-endian cursor over a byte range. Every read is bounds-checked before it touches the buffer and a
 * failure names the field and the offset (relative to `base`, so a payload reader reports payload offsets).
 * Byte fields are returned as zero-copy views; copy them if they must outlive the underlying buffer.
 */
export class Reader {
  private pos: number;
  private readonly end: number;

  constructor(
    private readonly buf: Buffer,
    start = 0,
    end = buf.length,
    private readonly base = start,
  ) {
    this.pos = start;
    this.end = end;
  }

  /** Offset of the next read, relative to the reader's base. */
  get offset(): number {
    return this.pos - this.base;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  hasMore(): boolean {
    return this.pos < this.end;
  }

  private need(n: number, field: string): number {
    if (this.end - this.pos < n) {
      throw new DecodeError(field, this.offset, `needs ${n} bytes, ${this.end - this.pos} left`, { kind: 'short' });
    }
    const at = this.pos;
    this.pos += n;
    return at;
  }

  u8(field: string): number {
    return this.buf[this.need(1, field)]!;
  }

  u16(field: string): number {
    return this.buf.readUInt16BE(this.need(2, field));
  }

  u32(field: string): number {
    return this.buf.readUInt32BE(this.need(4, field));
  }

  u64(field: string): bigint {
    return this.buf.readBigUInt64BE(this.need(8, field));
  }

  /** A fixed-length byte field. */
  bytes(length: number, field: string): Buffer {
    const at = this.need(length, field);
    return this.buf.subarray(at, at + length);
  }

  /** A `str`: u32 length then raw bytes, refused past `cap` before anything is sliced. */
  strBytes(field: string, cap: number = Caps.default): Buffer {
    const start = this.offset;
    return this.lengthPrefixed(field, start, this.u32(field), cap);
  }

  /** A u16-length string (the internal topics' layouts, Lua's `s2`), decoded as UTF-8. */
  str16(field: string): string {
    const start = this.offset;
    return this.lengthPrefixed(field, start, this.u16(field), 0xffff).toString('utf8');
  }

  private lengthPrefixed(field: string, start: number, length: number, cap: number): Buffer {
    if (length > cap) {
      throw new DecodeError(field, start, `string field too long: ${length} bytes, cap ${cap}`, {
        kind: 'string-too-long',
      });
    }
    if (length > this.remaining) {
      throw new DecodeError(field, start, `string length ${length} runs past the end (${this.remaining} bytes left)`, {
        kind: 'string-past-end',
      });
    }
    const at = this.pos;
    this.pos += length;
    return this.buf.subarray(at, at + length);
  }

  /** A `str` decoded as UTF-8 (names, messages); bytes are never validated, as on the wire. */
  str(field: string, cap: number = Caps.default): string {
    return this.strBytes(field, cap).toString('utf8');
  }

  /** A u32 count whose entries need at least `minEntryBytes` each: refuses counts the payload could not hold. */
  count(field: string, minEntryBytes: number, max?: number): number {
    const start = this.offset;
    const n = this.u32(field);
    if (max !== undefined && n > max) {
      throw new DecodeError(field, start, `count ${n} exceeds the limit of ${max}`, { kind: 'count-over-limit' });
    }
    if (minEntryBytes > 0 && n > Math.floor(this.remaining / minEntryBytes)) {
      throw new DecodeError(field, start, `count ${n} cannot fit in the ${this.remaining} bytes left`, {
        kind: 'count-past-end',
      });
    }
    return n;
  }

  /** An optional trailing u8 (wire.md §13): undefined when the frame ends before it. */
  optionalU8(field: string): number | undefined {
    return this.hasMore() ? this.u8(field) : undefined;
  }

  /** The unread rest of the range. */
  rest(): Buffer {
    const at = this.pos;
    this.pos = this.end;
    return this.buf.subarray(at, this.end);
  }

  /** Fails when bytes are left; for layouts (on disk) where trailing bytes are an error. Frames ignore them. */
  expectEnd(field: string): void {
    if (this.pos !== this.end) {
      throw new DecodeError(field, this.offset, `${this.end - this.pos} unexpected trailing bytes`, {
        kind: 'trailing-bytes',
      });
    }
  }
}
