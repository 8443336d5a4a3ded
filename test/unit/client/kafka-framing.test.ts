import { describe, expect, it } from 'vitest';
import { kafkaFraming } from '../../../src/client/kafka/kafka-framing.js';

const record = (bytes: number) => ({ key: 'k', value: Buffer.alloc(bytes) });

describe('kafkaFraming', () => {
  it('counts key, value and header bytes on top of a per-record bound', () => {
    const plain = kafkaFraming.entrySize(record(100), false);
    expect(plain).toBeGreaterThan(101);
    const headers = [{ name: 'h', value: Buffer.from('vv') }];
    expect(kafkaFraming.entrySize({ ...record(100), headers }, true)).toBe(plain + 10 + 1 + 2);
    expect(kafkaFraming.entrySize({ ...record(100), headers }, false)).toBe(plain);
  });

  it('cuts requests by max.request.size and by record count, keeping order', () => {
    const records = Array.from({ length: 30 }, () => record(100_000));
    const chunks = kafkaFraming.split('t', records, { maxRecords: 1000, fixedPartition: false });
    expect(chunks.map((c) => c.length)).toEqual([10, 10, 10]);
    expect(chunks.flat()).toEqual(records);
    for (const c of chunks) {
      const size = kafkaFraming.overhead('t', false) + c.reduce((n, r) => n + kafkaFraming.entrySize(r, true), 0);
      expect(size).toBeLessThanOrEqual(1024 * 1024);
    }
    const small = Array.from({ length: 7 }, () => record(1));
    expect(kafkaFraming.split('t', small, { maxRecords: 3, fixedPartition: false }).map((c) => c.length)).toEqual([
      3, 3, 1,
    ]);
  });

  it('a record larger than the limit goes alone (the broker refuses it, nothing else with it)', () => {
    const chunks = kafkaFraming.split('t', [record(10), record(2_000_000), record(10)], {
      maxRecords: 100,
      fixedPartition: false,
    });
    expect(chunks.map((c) => c.length)).toEqual([1, 1, 1]);
  });
});
