/**
 * The envelope lines (envelope.ts's envelopeJson, the reference, plus a newline) rendered straight into buffers: what
 * `consume --json` prints and what `consume --exec` feeds CMD, by the one renderer. Building each line as a string,
 * joining them and encoding the join was most of either path's cost, and its garbage made the scavenger copy live
 * records over and over; this writes the same bytes with no string per record, so only header names (rare) allocate.
 * A record comes either as an object (EnvelopeSource: a FetchedRecord, a batch item's transport) or as a row of a
 * FetchTable, whose numbers and bytes are read from the FETCH reply's frame itself (no object per record at all).
 *
 * Byte fields follow encodeBytes: hex or base64 when asked; under 'auto', utf8 when the bytes are valid UTF-8
 * (which is exactly when they decode and re-encode to themselves), escaped as JSON.stringify escapes a string:
 * `"` and `\` backslashed, \b \t \n \f \r short, other controls as \u00xx; base64 otherwise. Offsets and
 * timestamps are numbers while safe integers and decimal strings beyond (json.ts's bigint rule).
 */
import type { FetchTable } from '../../client/fetch-table.js';
import { dataViewOf } from '../../protocol/crc32.js';
import { SAFE_HIGH } from '../../protocol/raw-ints.js';
import { base64Into, hexInto, jsonTextInto, plainAsciiInto, utf8Valid } from './byte-fields.js';
import { Words, WORD_SLACK, plainWordsInto, uintInto, wordsInto } from './byte-words.js';
import type { EnvelopeEncoding, EnvelopeSource } from './envelope.js';

export { utf8Valid };

const ascii = (s: string): Words => new Words(Buffer.from(s, 'latin1'));
const OFFSET = ascii(',"offset":');
const TIMESTAMP = ascii(',"timestamp":');
const KEY = ascii(',"key":');
/** What follows a key: `null` or its field's closing quote and brace, then the value's name (one copy for both). */
const NULL_THEN_VALUE = ascii('null,"value":');
const KEY_NULL_THEN_VALUE = ascii(',"key":null,"value":');
const CLOSE_THEN_VALUE = ascii('"},"value":');
const CLOSE_THEN_HEADERS = ascii('"},"headers":');
/** The value's close and the rest of the line, for a line without headers or with an empty list (one store run). */
const CLOSE_THEN_NULL_END = ascii('"},"headers":null}\n');
const CLOSE_THEN_EMPTY_END = ascii('"},"headers":[]}\n');
const NULL_END = ascii('null}\n');
const END = ascii('}\n');
const CLOSE_THEN_BRACE = ascii('"}}');
const UTF8_OPEN = ascii('{"utf8":"');
const BASE64_OPEN = ascii('{"base64":"');
const HEX_OPEN = ascii('{"hex":"');
const NAME_OPEN = ascii('{"name":');
const HEADER_VALUE = ascii(',"value":');
const TWO_32 = 2 ** 32;

/** Bytes a byte field of n bytes can take at most: `\u00xx` for every byte, plus the braces and the encoding's name. */
const fieldBound = (n: number): number => 16 + 6 * n;
/** Bytes a line takes besides its topic and byte fields: the fixed parts and the widest numbers. */
const FIXED_BYTES = 160;

/**
 * Room kept for a topic prefix (at most 6 bytes per byte of a 249-byte name). full() counts it as room() does, or a
 * chunk that full() let through would be grown (a copy, and a buffer too big to recycle) instead of taken.
 */
const PREFIX_ROOM = 6 * 256 + WORD_SLACK;

export class EnvelopeWriter {
  private buf: Buffer;
  /** A DataView over exactly `buf`'s bytes (base64's 32-bit stores); set with buf by use(). */
  private view: DataView;
  private pos = 0;
  private lastTopic: string | undefined;
  private topicPrefix: Words = new Words(Buffer.alloc(0));
  /** A FetchTable's topic prefixes, by topic index (the table the cache is for: one table at a time). */
  private tablePrefixes: Words[] = [];
  /** A DataView over the frame of the table addRow() last read (4-byte loads of its values), and that frame. */
  private frameView: DataView | undefined;
  private viewedFrame: Buffer | undefined;
  private prefixesFor: readonly string[] | undefined;
  /** Chunks whose bytes were written out, for take() to render into again (no allocation per chunk). */
  private readonly spare: Buffer[] = [];
  /** The last timestamp addRow() rendered (its two halves) and its text as words (timestamp()). */
  private timestampHigh = -1;
  private timestampLow = -1;
  private timestampLength = 0;
  private readonly lastTimestamp = new Int32Array(6);
  /** The bound full() computed, and for which record: add() of that record reuses it. */
  private need = 0;
  private needFor: EnvelopeSource | undefined;

  constructor(
    private readonly encoding: EnvelopeEncoding,
    private readonly withHeaders: boolean,
    private readonly chunkBytes: number,
  ) {
    this.buf = Buffer.allocUnsafe(chunkBytes);
    this.view = dataViewOf(this.buf);
  }

  private use(buf: Buffer): void {
    this.buf = buf;
    this.view = dataViewOf(buf);
  }

  /** Bytes rendered and not taken yet. */
  get size(): number {
    return this.pos;
  }

  /** True when `record`'s line may not fit behind what is rendered: take() first. */
  full(record: EnvelopeSource): boolean {
    this.need = this.bound(record);
    this.needFor = record;
    return this.pos > 0 && this.pos + this.need + PREFIX_ROOM > this.buf.length;
  }

  /** full() for record i of `t` (addRow's line). */
  fullRow(t: FetchTable, i: number): boolean {
    return this.pos > 0 && this.pos + rowBound(t, i) + PREFIX_ROOM > this.buf.length;
  }

  /** Hands out the rendered bytes and starts a fresh buffer (a recycled one when there is one). */
  take(): Buffer {
    const out = this.buf.subarray(0, this.pos);
    this.use(this.spare.pop() ?? Buffer.allocUnsafe(this.chunkBytes));
    this.pos = 0;
    return out;
  }

  /** The rendered bytes, for a writer used once (no fresh buffer after them, unlike take()). */
  rendered(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  /** Gives back bytes take() handed out once nothing reads them any more (their write completed). */
  recycle(taken: Buffer): void {
    const whole = taken.buffer;
    if (taken.byteOffset === 0 && whole.byteLength === this.chunkBytes && this.spare.length < 8)
      this.spare.push(Buffer.from(whole, 0, whole.byteLength));
  }

  /** Appends `record`'s envelope line (with its newline). */
  add(r: EnvelopeSource): void {
    this.room(this.needFor === r ? this.need : this.bound(r));
    this.needFor = undefined;
    if (r.topic !== this.lastTopic) {
      this.lastTopic = r.topic;
      this.topicPrefix = prefixOf(r.topic);
    }
    this.put(this.topicPrefix);
    this.int(r.partition);
    this.put(OFFSET);
    this.big(r.offset);
    this.put(TIMESTAMP);
    this.big(r.timestamp);
    this.put(KEY);
    if (r.key.length === 0) this.put(NULL_THEN_VALUE);
    else this.field(r.key, undefined, 0, r.key.length, CLOSE_THEN_VALUE);
    this.field(r.value, undefined, 0, r.value.length, CLOSE_THEN_HEADERS);
    if (!this.withHeaders || r.headers === undefined) this.put(NULL_END);
    else {
      this.headers(r.headers);
      this.put(END);
    }
  }

  /** Appends the envelope line of record i of `t`, read from its frame. */
  addRow(t: FetchTable, i: number): void {
    const frame = t.frame;
    const view = this.frameViewOf(frame);
    const key = t.keyStart(i);
    const keyLen = t.keyLength(i);
    const value = t.valueStart(i);
    const valueLen = t.valueLength(i);
    const headerBytes = t.headerBytes(i);
    this.room(rowBound(t, i));
    this.put(this.tablePrefix(t, t.topicIndex(i)));
    const at = t.u64Position(i, 4);
    this.pos = uintInto(this.view, this.pos, view.getUint32(at - 4));
    this.put(OFFSET);
    this.u64(view, at);
    this.put(TIMESTAMP);
    this.timestamp(view, at + 8);
    if (keyLen === 0) this.put(KEY_NULL_THEN_VALUE);
    else {
      this.put(KEY);
      this.field(frame, view, key, key + keyLen, CLOSE_THEN_VALUE);
    }
    const headers = this.withHeaders && t.withHeaders;
    const close = !headers ? CLOSE_THEN_NULL_END : headerBytes === 2 ? CLOSE_THEN_EMPTY_END : CLOSE_THEN_HEADERS;
    this.field(frame, view, value, value + valueLen, close);
    if (close === CLOSE_THEN_HEADERS) {
      this.headers(t.headers(i)!);
      this.put(END);
    }
  }

  private frameViewOf(frame: Buffer): DataView {
    if (this.viewedFrame === frame) return this.frameView!;
    this.viewedFrame = frame;
    return (this.frameView = dataViewOf(frame));
  }

  private tablePrefix(t: FetchTable, topic: number): Words {
    if (this.prefixesFor !== t.topics) {
      this.prefixesFor = t.topics;
      this.tablePrefixes = t.topics.map(prefixOf);
    }
    return this.tablePrefixes[topic]!;
  }

  private bound(r: EnvelopeSource): number {
    let n = 6 * r.topic.length + FIXED_BYTES + fieldBound(r.key.length) + fieldBound(r.value.length);
    if (this.withHeaders && r.headers)
      for (const h of r.headers) n += 32 + 6 * h.name.length + fieldBound(h.value.length);
    return n;
  }

  /** Makes room for `need` more bytes and a topic prefix (PREFIX_ROOM). */
  private room(need: number): void {
    need += PREFIX_ROOM;
    if (this.pos + need <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(2 * this.buf.length, this.pos + need));
    this.buf.copy(next, 0, 0, this.pos);
    this.use(next);
  }

  private put(w: Words): void {
    this.pos = wordsInto(this.view, this.pos, w);
  }

  /** A safe integer, in decimal. */
  private int(v: number): void {
    if (v < 0) {
      this.buf[this.pos++] = 0x2d;
      v = -v;
    }
    this.pos = uintInto(this.view, this.pos, v);
  }

  private big(v: bigint): void {
    // One conversion and a check on the double: a bigint beyond the safe range never rounds into it.
    const n = Number(v);
    if (Number.isSafeInteger(n)) this.int(n);
    else this.pos += this.buf.write(`"${v}"`, this.pos, 'latin1');
  }

  /** The u64 at `b[at, at+8)` by the same rule as big(). */
  private u64(b: DataView, at: number): void {
    const high = b.getUint32(at);
    if (high <= SAFE_HIGH) this.pos = uintInto(this.view, this.pos, high * TWO_32 + b.getUint32(at + 4));
    else this.pos += this.buf.write(`"${b.getBigUint64(at)}"`, this.pos, 'latin1');
  }

  /**
   * u64() for a timestamp: the same value as the last one (a producer's batch often shares one) is stored again
   * from the words it was rendered as.
   */
  private timestamp(b: DataView, at: number): void {
    const high = b.getUint32(at);
    const low = b.getUint32(at + 4);
    const text = this.lastTimestamp;
    if (high === this.timestampHigh && low === this.timestampLow) {
      const out = this.view;
      for (let k = 0; k < text.length; k++) out.setInt32(this.pos + 4 * k, text[k]!);
      this.pos += this.timestampLength;
      return;
    }
    const start = this.pos;
    this.u64(b, at);
    this.timestampHigh = high;
    this.timestampLow = low;
    this.timestampLength = this.pos - start;
    // At most 22 bytes (a quoted 20-digit number): 6 words; room() left the bytes past pos to read.
    for (let k = 0; k < text.length; k++) text[k] = this.view.getInt32(start + 4 * k);
  }

  /**
   * The byte field of `src[from, to)`, then `close` (its closing `"}` and what follows it). `srcView`, a DataView
   * over exactly `src`'s bytes when the caller has one, lets plain text be copied four bytes at a time.
   */
  private field(src: Buffer, srcView: DataView | undefined, from: number, to: number, close: Words): void {
    if (this.encoding === 'hex') {
      this.put(HEX_OPEN);
      this.pos = hexInto(this.buf, this.pos, src, from, to);
    } else if (this.encoding === 'base64' || !this.utf8Text(src, srcView, from, to)) {
      this.put(BASE64_OPEN);
      this.pos = base64Into(this.buf, this.view, this.pos, src, from, to);
    }
    this.put(close);
  }

  /**
   * `{"utf8":"<text>` when `src[from, to)` is valid UTF-8, with what JSON.stringify escapes escaped; false, with
   * nothing written, otherwise. ASCII that needs no escape (the common case) is copied in one pass that also checks.
   */
  private utf8Text(src: Buffer, srcView: DataView | undefined, from: number, to: number): boolean {
    const start = this.pos;
    this.put(UTF8_OPEN);
    if (srcView !== undefined) {
      const words = plainWordsInto(this.view, this.pos, srcView, from, to);
      this.pos += words - from;
      from = words;
    }
    const stop = plainAsciiInto(this.buf, this.pos, src, from, to);
    this.pos += stop - from;
    if (stop === to) return true;
    if (!utf8Valid(src, stop, to)) {
      this.pos = start;
      return false;
    }
    this.pos = jsonTextInto(this.buf, this.pos, src, stop, to);
    return true;
  }

  private headers(headers: NonNullable<EnvelopeSource['headers']>): void {
    this.buf[this.pos++] = 0x5b;
    for (let i = 0; i < headers.length; i++) {
      const h = headers[i]!;
      if (i > 0) this.buf[this.pos++] = 0x2c;
      this.put(NAME_OPEN);
      this.pos += this.buf.write(JSON.stringify(h.name), this.pos, 'utf8');
      this.put(HEADER_VALUE);
      this.field(h.value, undefined, 0, h.value.length, CLOSE_THEN_BRACE);
    }
    this.buf[this.pos++] = 0x5d;
  }
}

/** Bytes record i of `t`'s line takes at most, besides its topic prefix. */
function rowBound(t: FetchTable, i: number): number {
  return FIXED_BYTES + fieldBound(t.keyLength(i)) + fieldBound(t.valueLength(i)) + 16 + 6 * t.headerBytes(i);
}

function prefixOf(topic: string): Words {
  return new Words(Buffer.from(`{"topic":${JSON.stringify(topic)},"partition":`, 'utf8'));
}
