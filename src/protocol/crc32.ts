import zlib from 'node:zlib';

/** CRC-32/IEEE 802.3 (zlib's crc32), the only CRC on disk (storage.md §8). Not Castagnoli. */
type Crc32Fn = (data: Uint8Array, initial?: number) => number;

const native = (zlib as unknown as { crc32?: Crc32Fn }).crc32;

let table: Uint32Array | undefined;
function makeTable(): Uint32Array {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
}

function portable(data: Uint8Array, initial = 0): number {
  table ??= makeTable();
  let c = (initial ^ 0xffffffff) >>> 0;
  for (let i = 0; i < data.length; i++) c = table[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * Slicing-by-8 tables: table k maps a byte to its CRC contribution k bytes further on, so eight bytes fold per step.
 * Below about 256 bytes this beats zlib.crc32, whose binding call alone costs more than the arithmetic (a 13-byte
 * record header, a 100-byte payload); above it the native code wins.
 */
const SMALL_INPUT_BYTES = 256;
let table8: Int32Array | undefined;
function makeTable8(): Int32Array {
  const base = makeTable();
  const t = new Int32Array(256 * 8);
  for (let n = 0; n < 256; n++) t[n] = base[n]! | 0;
  for (let n = 0; n < 256; n++) {
    let c = t[n]!;
    for (let k = 1; k < 8; k++) {
      c = t[c & 0xff]! ^ (c >>> 8);
      t[k * 256 + n] = c;
    }
  }
  return t;
}

function sliced(data: Uint8Array, start: number, end: number, initial: number): number {
  const t = (table8 ??= makeTable8());
  let c = ~initial;
  let i = start;
  const end8 = end - ((end - start) & 7);
  for (; i < end8; i += 8) {
    const a = c ^ (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24));
    c =
      t[1792 + (a & 0xff)]! ^
      t[1536 + ((a >>> 8) & 0xff)]! ^
      t[1280 + ((a >>> 16) & 0xff)]! ^
      t[1024 + (a >>> 24)]! ^
      t[768 + data[i + 4]!]! ^
      t[512 + data[i + 5]!]! ^
      t[256 + data[i + 6]!]! ^
      t[data[i + 7]!]!;
  }
  for (; i < end; i++) c = t[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** The CRC of `data[start, end)` without creating a view: the hot path of record encode and verify. */
export function crc32Range(data: Uint8Array, start: number, end: number, initial = 0): number {
  if (end - start < SMALL_INPUT_BYTES || !native) return sliced(data, start, end, initial);
  return native(data.subarray(start, end), initial) >>> 0;
}

/** crc32(data, previous) continues a running CRC, so `crc32(b, crc32(a))` equals `crc32(a || b)`. */
export const crc32: Crc32Fn = (data, initial = 0) => crc32Range(data, 0, data.length, initial);
export const crc32Portable = portable;

/**
 * Copies `src[start, end)` to `dst` at `at` and returns the CRC of the copied bytes (continuing `initial`), in one
 * pass over DataViews: eight bytes move as two unaligned little-endian u32 loads and stores, whose bytes the
 * slicing-by-8 step takes apart with shifts. That costs less than the CRC alone over byte loads (crc32Range), where
 * a separate `set`/`copy` call per key or value would cost more than the bytes it moves (a produced record's).
 */
export function crc32Copy(src: DataView, start: number, end: number, dst: DataView, at: number, initial = 0): number {
  const t = (table8 ??= makeTable8());
  let c = ~initial;
  let i = start;
  let o = at;
  const end8 = end - ((end - start) & 7);
  for (; i < end8; i += 8, o += 8) {
    const w0 = src.getInt32(i, true);
    const w1 = src.getInt32(i + 4, true);
    dst.setInt32(o, w0, true);
    dst.setInt32(o + 4, w1, true);
    const a = c ^ w0;
    c =
      t[1792 + (a & 0xff)]! ^
      t[1536 + ((a >>> 8) & 0xff)]! ^
      t[1280 + ((a >>> 16) & 0xff)]! ^
      t[1024 + (a >>> 24)]! ^
      t[768 + (w1 & 0xff)]! ^
      t[512 + ((w1 >>> 8) & 0xff)]! ^
      t[256 + ((w1 >>> 16) & 0xff)]! ^
      t[w1 >>> 24]!;
  }
  for (; i < end; i++, o++) {
    const b = src.getUint8(i);
    dst.setUint8(o, b);
    c = t[(c ^ b) & 0xff]! ^ (c >>> 8);
  }
  return ~c >>> 0;
}

/** A DataView over exactly the bytes of `b`. */
export function dataViewOf(b: Uint8Array): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}
