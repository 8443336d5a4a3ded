/**
 * Word-at-a-time pieces of envelope-writer.ts: the fixed parts of a line and its numbers written with 32- and 16-bit
 * stores (a DataView over the output), and plain ASCII copied four bytes per load and store. A byte at a time, the
 * fixed parts alone (some 100 bytes a line) cost as much as a 100-byte value, and a 13-digit timestamp took a
 * float division per digit.
 */

/** Bytes of a fixed part as big-endian 32-bit words (the last one zero-padded): put() stores all of them. */
export class Words {
  readonly length: number;
  readonly words: Int32Array;

  constructor(readonly bytes: Buffer) {
    this.length = bytes.length;
    const padded = Buffer.alloc(Math.ceil(bytes.length / 4) * 4);
    bytes.copy(padded);
    this.words = new Int32Array(padded.length / 4);
    for (let i = 0; i < this.words.length; i++) this.words[i] = padded.readInt32BE(4 * i);
  }
}

/** Bytes past a write's end that may be stored or loaded (a fixed part's padding, a timestamp's six words). */
export const WORD_SLACK = 24;

/** `w` at `p`; returns the position after it. Up to 3 bytes past it are overwritten (with zeros). */
export function wordsInto(out: DataView, p: number, w: Words): number {
  const words = w.words;
  for (let i = 0; i < words.length; i++) out.setInt32(p + 4 * i, words[i]!);
  return p + w.length;
}

/** The two ASCII digits of each of 0..99, the first in the high byte. */
const PAIRS = new Uint16Array(100);
for (let v = 0; v < 100; v++) PAIRS[v] = ((0x30 + Math.floor(v / 10)) << 8) | (0x30 + (v % 10));

/** Decimal digits of 0 ≤ v < 2^31. */
function digits31(v: number): number {
  if (v < 100_000) return v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10_000 ? 4 : 5;
  return v < 1_000_000 ? 6 : v < 10_000_000 ? 7 : v < 100_000_000 ? 8 : v < 1_000_000_000 ? 9 : 10;
}

/** 0 ≤ v < 2^31 in decimal, two digits per store. */
function int31Into(out: DataView, p: number, v: number): number {
  const end = p + digits31(v);
  let q = end;
  while (v >= 100) {
    const d = (v / 100) | 0;
    q -= 2;
    out.setUint16(q, PAIRS[v - d * 100]!);
    v = d;
  }
  if (v >= 10) out.setUint16(q - 2, PAIRS[v]!);
  else out.setUint8(q - 1, 0x30 + v);
  return end;
}

/** 0 ≤ v < 10^8 as exactly 8 digits (leading zeros). */
function pad8Into(out: DataView, p: number, v: number): number {
  const high = (v / 10_000) | 0;
  const low = v - high * 10_000;
  const hh = (high / 100) | 0;
  const lh = (low / 100) | 0;
  out.setUint16(p, PAIRS[hh]!);
  out.setUint16(p + 2, PAIRS[high - hh * 100]!);
  out.setUint16(p + 4, PAIRS[lh]!);
  out.setUint16(p + 6, PAIRS[low - lh * 100]!);
  return p + 8;
}

/** A non-negative safe integer in decimal at `p`; returns the position after it. */
export function uintInto(out: DataView, p: number, v: number): number {
  if (v < 0x8000_0000) return int31Into(out, p, v);
  const high = Math.floor(v / 100_000_000);
  return pad8Into(out, int31Into(out, p, high), v - high * 100_000_000);
}

/**
 * ASCII of `src[from, to)` that needs no JSON escape (no control, `"` or `\`, nothing ≥ 0x80), copied four bytes at
 * a time to `out` at `p`; stops before the first four that are not all such bytes, or fewer than four remain.
 * Returns where it stopped in `src` (the copy is `stop - from` bytes); the rest is left to a byte-at-a-time copy.
 */
export function plainWordsInto(out: DataView, p: number, src: DataView, from: number, to: number): number {
  let i = from;
  for (; i + 8 <= to; i += 8, p += 8) {
    const x = src.getInt32(i);
    const y = src.getInt32(i + 4);
    if ((needsEscape(x) | needsEscape(y)) & 0x8080_8080) break;
    out.setInt32(p, x);
    out.setInt32(p + 4, y);
  }
  for (; i + 4 <= to; i += 4, p += 4) {
    const x = src.getInt32(i);
    if (needsEscape(x) & 0x8080_8080) break;
    out.setInt32(p, x);
  }
  return i;
}

/**
 * The high bit of each byte of `x` may be set where that byte is ≥ 0x80 (x itself), < 0x20 (a borrow out of
 * x − 0x20 per byte), 0x22 or 0x5c (a zero byte in x ^ 0x22… or x ^ 0x5c…): none is set when no byte needs
 * escaping, one at least when some byte does (the borrow tricks are exact as to whether, not as to which).
 */
function needsEscape(x: number): number {
  const q = x ^ 0x2222_2222;
  const s = x ^ 0x5c5c_5c5c;
  return x | ((x - 0x2020_2020) & ~x) | ((q - 0x0101_0101) & ~q) | ((s - 0x0101_0101) & ~s);
}
