/**
 * Reply buffers for FETCH, reused once the socket has taken their bytes. A 1,000-record reply is ~170 KiB: a fresh
 * buffer of that size is a fresh mmap whose pages fault in on first write and are unmapped when V8 frees it, which
 * cost more kernel time per record than encoding the reply (profiled: 170-700 ns per record at load 3-13, against
 * ~15 for a reused one). Buffers below MIN_POOLED come from Node's allocator as before.
 *
 * Only a buffer this pool handed out may be given back, and only once nothing else can read it: the fetch handler
 * gives a reply back when `conn.flushed()` resolved, that is when the socket's write callback said every byte went
 * to the kernel. A reply whose connection closed is never given back (a write cancelled by a destroy may still be
 * referenced); the garbage collector takes it.
 */

/** Replies smaller than this are not pooled (Node's own slab pool serves small buffers well). */
export const MIN_POOLED = 16 * 1024;
/** Capacities are powers of two from here, so replies of nearby sizes share buffers. */
const MIN_CAPACITY = 64 * 1024;
/** What the pool keeps at most while idle: a few replies in flight on a few connections. */
const MAX_FREE = 8;
const MAX_FREE_BYTES = 16 * 1024 * 1024;

export class ReplyPool {
  private readonly free: ArrayBuffer[] = [];
  private freeBytes = 0;

  /** Buffers the pool keeps for reuse right now, and their bytes. */
  get idle(): { buffers: number; bytes: number } {
    return { buffers: this.free.length, bytes: this.freeBytes };
  }

  /** A buffer of exactly `size` bytes (contents undefined), from the pool when one is large enough. */
  readonly take = (size: number): Buffer => {
    if (size < MIN_POOLED) return Buffer.allocUnsafe(size);
    const free = this.free;
    let best = -1;
    for (let i = 0; i < free.length; i++) {
      const n = free[i]!.byteLength;
      if (n >= size && (best < 0 || n < free[best]!.byteLength)) best = i;
    }
    if (best < 0) return Buffer.allocUnsafeSlow(capacityFor(size)).subarray(0, size);
    const ab = free[best]!;
    free[best] = free[free.length - 1]!;
    free.pop();
    this.freeBytes -= ab.byteLength;
    return Buffer.from(ab, 0, size);
  };

  /** Takes `buf` (from `take`) back for reuse; the caller guarantees nothing reads it any more. */
  give(buf: Buffer): void {
    const ab = buf.buffer;
    if (buf.length < MIN_POOLED || buf.byteOffset !== 0 || !(ab instanceof ArrayBuffer)) return;
    if (this.free.length >= MAX_FREE || this.freeBytes + ab.byteLength > MAX_FREE_BYTES) return;
    if (this.free.includes(ab)) return;
    this.free.push(ab);
    this.freeBytes += ab.byteLength;
  }
}

function capacityFor(size: number): number {
  let c = MIN_CAPACITY;
  while (c < size) c *= 2;
  return c;
}
