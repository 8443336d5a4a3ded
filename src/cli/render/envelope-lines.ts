/**
 * `consume --json`'s hot path: the envelope lines of one FETCH rendered straight into one Buffer, byte for byte what
 * `envelopeJson` (envelope.ts, the reference) prints plus a newline. The fixed parts are ASCII bytes copied in,
 * partitions, offsets and timestamps are written as digits, and a key or value that is valid UTF-8 without `"`, `\`
 * or a control byte is copied as it is (JSON.stringify would leave such text unchanged, and exact UTF-8 is what
 * `--encoding auto` prints as utf8). Anything else (escapes, base64, hex, headers) goes through the reference's own
 * field renderer, so the two cannot drift apart on the rare shapes.
 */
import { isUtf8 } from 'node:buffer';
import { type EnvelopeEncoding, type EnvelopeSource, byteFieldJson } from './envelope.js';

const ascii = (s: string): Buffer => Buffer.from(s, 'latin1');
const PARTITION = ascii(',"partition":');
const OFFSET = ascii(',"offset":');
const TIMESTAMP = ascii(',"timestamp":');
const KEY_NULL = ascii(',"key":null');
const KEY = ascii(',"key":');
const VALUE = ascii(',"value":');
const UTF8_OPEN = ascii('{"utf8":"');
const UTF8_CLOSE = ascii('"}');
const HEADERS_NULL = ascii(',"headers":null}\n');
const MINUS = ascii('-');
/** Bytes a line takes besides its topic, key, value and headers (the fixed parts and the widest numbers). */
const FIXED_BYTES = 160;
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A growing byte buffer for one write. */
class ByteOut {
  buf: Buffer;
  pos = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  text(s: string): void {
    this.room(s.length * 3);
    this.pos += this.buf.write(s, this.pos);
  }

  put(b: Uint8Array): void {
    if (this.pos + b.length > this.buf.length) this.room(b.length);
    const buf = this.buf;
    let pos = this.pos;
    // The fixed parts are short: a loop beats a native copy's call at this size.
    if (b.length <= 24) for (let i = 0; i < b.length; i++) buf[pos++] = b[i]!;
    else {
      buf.set(b, pos);
      pos += b.length;
    }
    this.pos = pos;
  }

  /**
   * `{"utf8":"<bytes>"}` when the bytes can stand inside a JSON string as they are (valid UTF-8 without `"`, `\` or a
   * control byte); false, with nothing written, otherwise. One pass copies and checks; only text with a non-ASCII
   * byte is validated again as UTF-8.
   */
  plainUtf8(bytes: Buffer): boolean {
    this.room(bytes.length + UTF8_OPEN.length + UTF8_CLOSE.length);
    const start = this.pos;
    this.put(UTF8_OPEN);
    const buf = this.buf;
    let pos = this.pos;
    let high = 0;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i]!;
      if (b < 0x20 || b === 0x22 || b === 0x5c) {
        this.pos = start;
        return false;
      }
      high |= b;
      buf[pos++] = b;
    }
    if (high >= 0x80 && !isUtf8(bytes)) {
      this.pos = start;
      return false;
    }
    this.pos = pos;
    this.put(UTF8_CLOSE);
    return true;
  }

  /** A non-negative safe integer as decimal digits. */
  digits(v: number): void {
    if (this.pos + 16 > this.buf.length) this.room(16);
    let end = this.pos;
    for (let x = v; x >= 10; x = Math.floor(x / 10)) end++;
    const buf = this.buf;
    this.pos = end + 1;
    for (let x = v; ; end--) {
      const q = Math.floor(x / 10);
      buf[end] = 0x30 + (x - q * 10);
      if (q === 0) break;
      x = q;
    }
  }

  /** A 64-bit value by the rule of json.ts: a number while safe, a decimal string beyond. */
  bigint(n: bigint): void {
    if (n >= 0n && n <= SAFE) return this.digits(Number(n));
    if (n < 0n && n >= -SAFE) {
      this.put(MINUS);
      return this.digits(-Number(n));
    }
    this.text(`"${n}"`);
  }
}

function byteField(out: ByteOut, bytes: Buffer, encoding: EnvelopeEncoding): void {
  if (encoding !== 'auto' || !out.plainUtf8(bytes)) out.text(byteFieldJson(bytes, encoding));
}

function headersJson(r: EnvelopeSource, encoding: EnvelopeEncoding): string {
  const parts = (r.headers ?? []).map(
    (h) => `{"name":${JSON.stringify(h.name)},"value":${byteFieldJson(h.value, encoding)}}`,
  );
  return `,"headers":[${parts.join(',')}]}\n`;
}

function line(out: ByteOut, r: EnvelopeSource, topic: Buffer, encoding: EnvelopeEncoding): void {
  out.room(FIXED_BYTES + topic.length + r.key.length + r.value.length);
  out.put(topic);
  out.put(PARTITION);
  out.digits(r.partition);
  out.put(OFFSET);
  out.bigint(r.offset);
  out.put(TIMESTAMP);
  out.bigint(r.timestamp);
  if (r.key.length === 0) out.put(KEY_NULL);
  else {
    out.put(KEY);
    byteField(out, r.key, encoding);
  }
  out.put(VALUE);
  byteField(out, r.value, encoding);
  if (r.headers === undefined) out.put(HEADERS_NULL);
  else out.text(headersJson(r, encoding));
}

/**
 * The envelope lines of `records` (each `envelopeJson` plus a newline) in one buffer, for one write, and the bytes
 * of each line. Text that needs no escaping is copied from the record as it is, never decoded.
 */
export function envelopeLines(
  records: readonly EnvelopeSource[],
  encoding: EnvelopeEncoding = 'auto',
): { bytes: Buffer; lengths: number[] } {
  const out = new ByteOut(records.length * 256);
  const lengths = new Array<number>(records.length);
  let topic: string | undefined;
  let topicOpen = Buffer.alloc(0);
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const start = out.pos;
    if (r.topic !== topic) {
      topic = r.topic;
      topicOpen = Buffer.from(`{"topic":${JSON.stringify(topic)}`, 'utf8');
    }
    line(out, r, topicOpen, encoding);
    lengths[i] = out.pos - start;
  }
  return { bytes: out.buf.subarray(0, out.pos), lengths };
}
