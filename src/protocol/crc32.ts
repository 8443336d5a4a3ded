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

/** crc32(data, previous) continues a running CRC, so `crc32(b, crc32(a))` equals `crc32(a || b)`. */
export const crc32: Crc32Fn = native ? (data, initial = 0) => native(data, initial) >>> 0 : portable;
export const crc32Portable = portable;
