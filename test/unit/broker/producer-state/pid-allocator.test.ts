import { describe, expect, it } from 'vitest';
import { PidAllocator } from '../../../../src/broker/producer-state/pid-allocator.js';

describe('PidAllocator', () => {
  it('starts at 1 (0 is reserved) and counts up', () => {
    const a = new PidAllocator();
    expect([a.allocate(), a.allocate(), a.nextPid]).toEqual([1n, 2n, 3n]);
    expect(new PidAllocator(0n).allocate()).toBe(1n);
  });

  it('resumes at max(highest persisted pid + 1, watermark)', () => {
    expect(PidAllocator.resume(undefined, undefined).nextPid).toBe(1n);
    expect(PidAllocator.resume(7n, undefined).nextPid).toBe(8n);
    expect(PidAllocator.resume(7n, 20n).nextPid).toBe(20n);
    expect(PidAllocator.resume(30n, 20n).nextPid).toBe(31n);
    expect(PidAllocator.resume(undefined, 5n).nextPid).toBe(5n);
  });
});
