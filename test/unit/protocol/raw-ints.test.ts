import { describe, expect, it } from 'vitest';
import { SAFE_HIGH, u32At, u64At } from '../../../src/protocol/raw-ints.js';
import { prng } from '../../helpers/prng.js';

describe('raw-ints (the unchecked hot-path reads)', () => {
  it('u32At reads big-endian at any position, the top bit unsigned', () => {
    const b = Buffer.from('00ffffffff80000001', 'hex');
    expect(u32At(b, 1)).toBe(0xffff_ffff);
    expect(u32At(b, 5)).toBe(0x8000_0001);
    expect(u32At(b, 0)).toBe(0x00ff_ffff);
  });

  it('u64At is exact on both sides of 2^53, where it switches from the Number path to readBigUInt64BE', () => {
    const cases = [0n, 1n, 2n ** 32n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 63n, 2n ** 64n - 1n];
    for (const v of cases) {
      const b = Buffer.alloc(9);
      b.writeBigUInt64BE(v, 1);
      expect(u64At(b, 1)).toBe(v);
    }
    expect(Number((2n ** 53n - 1n) >> 32n)).toBe(SAFE_HIGH);
  });

  it('agrees with Buffer#readBigUInt64BE on seeded random bytes', () => {
    const rand = prng(0x5eed);
    const b = Buffer.alloc(4096);
    for (let i = 0; i < b.length; i++) b[i] = Math.floor(rand() * 256);
    // Every fourth u64 gets a small high half, so both paths are exercised.
    for (let i = 0; i + 8 <= b.length; i += 32) b.writeUInt32BE(Math.floor(rand() * SAFE_HIGH), i);
    for (let i = 0; i + 8 <= b.length; i += 8) expect(u64At(b, i)).toBe(b.readBigUInt64BE(i));
  });
});
