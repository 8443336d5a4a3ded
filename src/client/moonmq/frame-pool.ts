/**
 * Encode buffers of a connection's request frames, reused once the socket has taken a frame. A PRODUCE_BATCH of
 * 1,000 records is a ~110 KiB frame: a fresh buffer per request costs a malloc (or an mmap) and a page fault per
 * 4 KiB the encoder writes, about 70 ns per record on the bench's client (`bench throughput` profile, session 8).
 *
 * A buffer goes back only after `socket.write`'s callback reported success: until then libuv may still be reading
 * it. A failed write drops its buffer instead (the connection is going away anyway). Small buffers are not kept: a
 * frame that fits in 16 KiB costs no page fault worth saving.
 */
export const POOL_MIN_BYTES = 16 * 1024;
/** At most this many bytes are kept per connection (the largest frame the broker takes by default is 1 MiB). */
export const POOL_MAX_BYTES = 4 * 1024 * 1024;
const POOL_MAX_BUFFERS = 8;

export class FramePool {
  private readonly free: Buffer[] = [];
  private bytes = 0;

  /**
   * A buffer of at least `minBytes` to encode the next frame into (the most recently returned that fits), or
   * undefined: the caller allocates as before, sized for the frame, rather than outgrow a smaller pooled one.
   */
  take(minBytes = 0): Buffer | undefined {
    for (let i = this.free.length - 1; i >= 0; i--) {
      const buf = this.free[i]!;
      if (buf.length < minBytes) continue;
      this.free.splice(i, 1);
      this.bytes -= buf.length;
      return buf;
    }
    return undefined;
  }

  /** Keeps `buf` (a whole buffer the pool may hand out again) if it is large enough and the pool has room. */
  give(buf: Buffer): void {
    if (buf.length < POOL_MIN_BYTES || this.free.length >= POOL_MAX_BUFFERS) return;
    if (this.bytes + buf.length > POOL_MAX_BYTES) return;
    this.free.push(buf);
    this.bytes += buf.length;
  }

  get size(): number {
    return this.free.length;
  }
}
