/** FNV-1a 32 (semantics.md §4): basis 0x811C9DC5, prime 0x01000193, XOR then multiply per byte. */
export function fnv1a32(data: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < data.length; i++) {
    h ^= data[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The 1-based partition id a key hashes to among `partitionCount` partitions. */
export function partitionForKey(key: Uint8Array, partitionCount: number): number {
  return (fnv1a32(key) % partitionCount) + 1;
}
