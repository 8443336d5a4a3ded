/**
 * The byte-level encoders of envelope-writer.ts: the inside of a byte field written straight into a buffer. Each
 * takes the output buffer and position and returns the position after what it wrote; the caller has made room.
 * base64 writes four characters per three bytes with one 32-bit store (a DataView over the output), from a table of
 * every 12-bit pair: most of a binary value's line is its base64, and a store per character was most of its cost.
 */
import { isUtf8 } from 'node:buffer';

const ascii = (s: string): Buffer => Buffer.from(s, 'latin1');
const B64 = ascii('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/');
const HEX = ascii('0123456789abcdef');
const SHORT_ESCAPES: Record<number, number> = { 0x08: 0x62, 0x09: 0x74, 0x0a: 0x6e, 0x0c: 0x66, 0x0d: 0x72 };

/** Two base64 characters (big-endian: the first in the high byte) for each 12-bit value. */
const B64_PAIRS = new Uint16Array(4096);
for (let v = 0; v < 4096; v++) B64_PAIRS[v] = (B64[v >> 6]! << 8) | B64[v & 63]!;

/** Fields up to this long are checked for UTF-8 here; longer ones by isUtf8 (native, faster per byte, not per call). */
const SHORT_FIELD = 32;

/**
 * Whether `b` is valid UTF-8 (Unicode table 3-7: no overlong forms, no surrogates, nothing past U+10FFFF), as
 * isUtf8 says. Short fields are checked in JS: the native call costs more than the check, and invalid bytes (random
 * binary values) are usually found in the first few bytes, so a long field's check can stop there too.
 */
export function utf8Valid(b: Uint8Array, from = 0, to = b.length): boolean {
  const n = to;
  const end = n - from <= SHORT_FIELD ? n : from + SHORT_FIELD;
  let i = from;
  while (i < end) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    const need = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
    if (need === 0 || i + need >= n) return false;
    const d = b[i + 1]!;
    const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
    if (d < lo || d > hi) return false;
    for (let k = 2; k <= need; k++) if ((b[i + k]! & 0xc0) !== 0x80) return false;
    i += need + 1;
  }
  return n <= end || isUtf8(from === 0 && to === b.length ? b : b.subarray(from, to));
}

/**
 * ASCII of `src[from, to)` that needs no JSON escape, copied to `buf` at `p` up to the first byte that does (or is
 * not ASCII); returns where the copy stopped in `src` (`to` when all of it was copied). The text is at
 * `buf[p, p + stop - from)`.
 */
export function plainAsciiInto(buf: Buffer, p: number, src: Buffer, from: number, to: number): number {
  let i = from;
  for (; i < to; i++) {
    const b = src[i]!;
    if (b < 0x20 || b === 0x22 || b === 0x5c || b >= 0x80) break;
    buf[p++] = b;
  }
  return i;
}

/** Valid UTF-8 bytes as the inside of a JSON string (what JSON.stringify writes for their text). */
export function jsonTextInto(buf: Buffer, p: number, bytes: Buffer, from: number, to: number): number {
  for (let i = from; i < to; i++) {
    const b = bytes[i]!;
    if (b >= 0x20 && b !== 0x22 && b !== 0x5c) {
      buf[p++] = b;
      continue;
    }
    buf[p++] = 0x5c;
    const short = SHORT_ESCAPES[b];
    if (b === 0x22 || b === 0x5c) buf[p++] = b;
    else if (short !== undefined) buf[p++] = short;
    else {
      buf[p++] = 0x75;
      buf[p++] = 0x30;
      buf[p++] = 0x30;
      buf[p++] = HEX[b >> 4]!;
      buf[p++] = HEX[b & 15]!;
    }
  }
  return p;
}

export function hexInto(buf: Buffer, p: number, bytes: Buffer, from: number, to: number): number {
  for (let i = from; i < to; i++) {
    buf[p++] = HEX[bytes[i]! >> 4]!;
    buf[p++] = HEX[bytes[i]! & 15]!;
  }
  return p;
}

/** Base64 of `bytes[from, n)` into `buf` at `p`; `view` is a DataView over exactly `buf`'s bytes. */
export function base64Into(buf: Buffer, view: DataView, p: number, bytes: Buffer, from: number, n: number): number {
  let i = from;
  for (; i + 2 < n; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    view.setUint32(p, (B64_PAIRS[v >> 12]! << 16) | B64_PAIRS[v & 4095]!);
    p += 4;
  }
  if (i < n) {
    const v = (bytes[i]! << 16) | (i + 1 < n ? bytes[i + 1]! << 8 : 0);
    buf[p++] = B64[v >> 18]!;
    buf[p++] = B64[(v >> 12) & 63]!;
    buf[p++] = i + 1 < n ? B64[(v >> 6) & 63]! : 0x3d;
    buf[p++] = 0x3d;
  }
  return p;
}
