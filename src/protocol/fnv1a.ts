/** FNV-1a 32 (semantics.md §4): basis 0x811C9DC5, prime 0x01000193, XOR then multiply per byte. */
export function fnv1a32(data: Uint8Array): number {
  return fnv1a32Range(data, 0, data.length);
}

/** fnv1a32 of `data[start, end)`, without a view (the broker's produce hot path hashes keys in the request). */
export function fnv1a32Range(data: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    h ^= data[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The 1-based partition id a key hashes to among `partitionCount` partitions. */
export function partitionForKey(key: Uint8Array, partitionCount: number): number {
  return (fnv1a32(key) % partitionCount) + 1;
}
