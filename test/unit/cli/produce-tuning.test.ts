import { describe, expect, it } from 'vitest';
import { parseByteSize, parseLingerMs, tuningOptions } from '../../../src/cli/produce-tuning.js';
import { UsageError } from '../../../src/errors.js';

describe('produce tuning flags', () => {
  it('parses sizes in bytes, binary and decimal units', () => {
    expect(parseByteSize('65536')).toBe(65_536);
    expect(parseByteSize('64KiB')).toBe(65_536);
    expect(parseByteSize('64k')).toBe(65_536);
    expect(parseByteSize('64kB')).toBe(64_000);
    expect(parseByteSize('32MiB')).toBe(33_554_432);
    expect(parseByteSize('2MB')).toBe(2_000_000);
    expect(() => parseByteSize('lots')).toThrow(UsageError);
    expect(() => parseByteSize('0')).toThrow(UsageError);
  });

  it('accepts a zero linger, unlike a timeout', () => {
    expect(parseLingerMs('0')).toBe(0);
    expect(parseLingerMs('0ms')).toBe(0);
    expect(parseLingerMs('5ms')).toBe(5);
    expect(parseLingerMs('1s')).toBe(1_000);
  });

  it('caps --batch at 1,024 for an idempotent producer and checks the options before connecting', () => {
    const flags = { batch: 5_000, timeout: 10_000 };
    expect(tuningOptions(flags, { idempotent: true, maxFrameBytes: 1_048_576 }).maxBatchRecords).toBe(1_024);
    expect(tuningOptions(flags, { idempotent: false, maxFrameBytes: 1_048_576 }).maxBatchRecords).toBe(5_000);
    expect(() =>
      tuningOptions({ ...flags, 'batch-bytes': 2_000_000 }, { idempotent: false, maxFrameBytes: 1_048_576 }),
    ).toThrow(/batchBytes must be/);
  });

  it('reads ahead (--max-in-flight + 2) batches of records at most, whatever --buffer-bytes allows', () => {
    const limits = { idempotent: false, maxFrameBytes: 1_048_576 };
    expect(tuningOptions({ batch: 1_000, timeout: 10_000 }, limits).bufferRecords).toBe(7_000);
    expect(tuningOptions({ batch: 1_000, 'max-in-flight': 1, timeout: 10_000 }, limits).bufferRecords).toBe(3_000);
    expect(tuningOptions({ timeout: 10_000 }, limits).bufferRecords).toBe(70_000);
    expect(tuningOptions({ timeout: 10_000 }, { ...limits, idempotent: true }).bufferRecords).toBe(7 * 1_024);
  });
});
