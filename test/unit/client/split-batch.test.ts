import { describe, expect, it } from 'vitest';
import { batchEntrySize, batchOverhead, splitBatch } from '../../../src/client/moonmq/split-batch.js';
import { UsageError } from '../../../src/errors.js';
import { encodeFrame } from '../../../src/protocol/message.js';
import { ProduceBatchRequest } from '../../../src/protocol/messages/produce-batch.js';

const rec = (size: number) => ({ key: Buffer.from('k'), value: Buffer.alloc(size, 0x61) });

/** The FrameLen the real encoder produces for a chunk. */
function frameLen(
  topic: string,
  records: { key: Buffer; value: Buffer; headers?: { name: string; value: Buffer }[] }[],
) {
  const withHeaders = records.some((r) => r.headers && r.headers.length > 0);
  const frame = encodeFrame(ProduceBatchRequest, Buffer.alloc(16, 1), {
    flags: withHeaders ? 2 : 0,
    codec: 0,
    topic,
    records,
  });
  return frame.length - 4;
}

describe('splitBatch', () => {
  it('computes the exact FrameLen the encoder produces', () => {
    const records = [rec(10), rec(0), { key: Buffer.alloc(0), value: Buffer.from('é') }];
    const predicted = batchOverhead(6) + records.reduce((n, r) => n + batchEntrySize(r, false), 0);
    expect(predicted).toBe(frameLen('orders', records));
    const withHeaders = [{ ...rec(3), headers: [{ name: 'trace', value: Buffer.from('abc') }] }, rec(1)];
    const predictedH = batchOverhead(6) + withHeaders.reduce((n, r) => n + batchEntrySize(r, true), 0);
    expect(predictedH).toBe(frameLen('orders', withHeaders));
  });

  it('keeps every chunk within the frame limit, in order, with no record lost', () => {
    const records = Array.from({ length: 500 }, (_, i) => rec((i * 37) % 5_000));
    const chunks = splitBatch(records, { maxFrameBytes: 64 * 1024, topic: 'orders' });
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.flat()).toEqual(records);
    for (const chunk of chunks) expect(frameLen('orders', chunk)).toBeLessThanOrEqual(64 * 1024);
    // Each chunk but the last is full: adding the next record would have crossed the limit.
    for (let i = 0; i < chunks.length - 1; i++) {
      expect(frameLen('orders', [...chunks[i]!, chunks[i + 1]![0]!])).toBeGreaterThan(64 * 1024);
    }
  });

  it('fills a frame exactly to the limit', () => {
    const limit = batchOverhead(1) + 2 * batchEntrySize(rec(100), false);
    const chunks = splitBatch([rec(100), rec(100), rec(100)], { maxFrameBytes: limit, topic: 't' });
    expect(chunks.map((c) => c.length)).toEqual([2, 1]);
  });

  it('caps records per chunk at 10,000 by default and at maxRecords when given', () => {
    const records = Array.from({ length: 25_001 }, () => ({ value: '' }));
    expect(splitBatch(records, { maxFrameBytes: 1 << 30 }).map((c) => c.length)).toEqual([10_000, 10_000, 5_001]);
    expect(splitBatch(records.slice(0, 7), { maxRecords: 3 }).map((c) => c.length)).toEqual([3, 3, 1]);
    expect(() => splitBatch(records, { maxRecords: 10_001 })).toThrow(UsageError);
  });

  it('assumes the longest topic name when none is given', () => {
    const limit = batchOverhead(6) + batchEntrySize(rec(10), false);
    expect(splitBatch([rec(10)], { maxFrameBytes: limit, topic: 'orders' })).toHaveLength(1);
    expect(() => splitBatch([rec(10)], { maxFrameBytes: limit })).toThrow(UsageError);
  });

  it('counts the 14 bytes of producer fields in an idempotent frame', () => {
    expect(batchOverhead(6, true)).toBe(batchOverhead(6) + 14);
    const limit = batchOverhead(6) + 2 * batchEntrySize(rec(100), false);
    const records = [rec(100), rec(100)];
    expect(splitBatch(records, { maxFrameBytes: limit, topic: 'orders' }).map((c) => c.length)).toEqual([2]);
    expect(
      splitBatch(records, { maxFrameBytes: limit, topic: 'orders', idempotent: true }).map((c) => c.length),
    ).toEqual([1, 1]);
  });

  it('refuses a record that cannot fit a frame on its own', () => {
    expect(() => splitBatch([rec(10), rec(2_000)], { maxFrameBytes: 1_000, topic: 't' })).toThrow(/record 1/);
  });

  it('returns no chunk for no record', () => {
    expect(splitBatch([])).toEqual([]);
  });
});
