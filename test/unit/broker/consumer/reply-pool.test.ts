import { describe, expect, it } from 'vitest';
import { MIN_POOLED, ReplyPool } from '../../../../src/broker/consumer/reply-pool.js';

describe('ReplyPool', () => {
  it('hands a given-back buffer out again for a reply that fits, and a fresh one while it is out', () => {
    const pool = new ReplyPool();
    const a = pool.take(170_000);
    expect(a.length).toBe(170_000);
    const b = pool.take(170_000);
    expect(b.buffer).not.toBe(a.buffer);
    pool.give(a);
    expect(pool.idle.buffers).toBe(1);
    const c = pool.take(150_000);
    expect([c.buffer, c.length, c.byteOffset]).toEqual([a.buffer, 150_000, 0]);
    expect(pool.idle.buffers).toBe(0);
    // Too large for the one given back: a new buffer, the small one stays.
    pool.give(c);
    expect(pool.take(600_000).buffer).not.toBe(a.buffer);
    expect(pool.idle.buffers).toBe(1);
  });

  it('picks the smallest buffer that fits and takes each back once', () => {
    const pool = new ReplyPool();
    const small = pool.take(MIN_POOLED);
    const large = pool.take(1_000_000);
    pool.give(large);
    pool.give(small);
    pool.give(small);
    expect(pool.idle.buffers).toBe(2);
    expect(pool.take(MIN_POOLED + 1).buffer).toBe(small.buffer);
    expect(pool.take(MIN_POOLED + 1).buffer).toBe(large.buffer);
  });

  it('never pools a small reply (a view of Node’s shared slab) nor keeps more than its caps', () => {
    const pool = new ReplyPool();
    const tiny = pool.take(21);
    pool.give(tiny);
    pool.give(Buffer.allocUnsafe(64).subarray(8));
    expect(pool.idle.buffers).toBe(0);
    const many = Array.from({ length: 12 }, () => pool.take(100_000));
    for (const b of many) pool.give(b);
    expect(pool.idle.buffers).toBe(8);
    const huge = Array.from({ length: 3 }, () => pool.take(5_000_000));
    const fresh = new ReplyPool();
    for (const b of huge) fresh.give(b);
    expect(fresh.idle.bytes).toBeLessThanOrEqual(16 * 1024 * 1024);
    expect(fresh.idle.buffers).toBe(2); // 8 MiB each: a third would pass the 16 MiB cap
  });
});
