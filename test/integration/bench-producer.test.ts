/**
 * `bench producer` against the embedded broker child (dist/bench/broker-child.js: built first). No timing
 * assertions: the report's shape, its prediction arithmetic, counts that must add up, and that a frozen broker
 * leaves no send pending past its deadline.
 */
import { describe, expect, it } from 'vitest';
import { runProducerBench } from '../../src/bench/producer.js';

describe('bench producer on the embedded broker', () => {
  it('a throttled run: prediction for producers × topics next to the measurement, every record acked', async () => {
    const report = await runProducerBench({
      producers: 2,
      partitions: 4,
      rateBytesPerSec: 200_000,
      batchBytes: 16_384,
      lingerMs: 5,
      durationMs: 600,
    });
    expect(report.params).toMatchObject({
      producers: 2,
      partitions: 4,
      topics: 1,
      rateBytesPerSec: 200_000,
      valueSize: 100,
      keySize: 8,
    });
    expect(report.baseline).toBeNull();
    const [point] = report.points;
    // 2 accumulators at 100,000 B/s each: 500 bytes arrive during a 5 ms linger.
    expect(point!.prediction).toMatchObject({
      basis: 'producers × topics',
      accumulators: 2,
      bytesPerSecPerAccumulator: 100_000,
      lingerArrivalsBytes: 500,
      limitedBy: 'linger',
    });
    expect(point!.prediction!.meanBatchBytes).toBeCloseTo(608, 6);
    const m = point!.measured;
    expect(m.failed + m.uncertain).toBe(0);
    expect(m.acked).toBeGreaterThan(0);
    expect(m.batchRecords.avg).toBeGreaterThanOrEqual(1);
    expect(point!.batchRatio).toBeCloseTo(m.meanBatchBytes / point!.prediction!.meanBatchBytes, 9);
    expect(m.queueTimeMs.p50).toBeLessThanOrEqual(m.queueTimeMs.max);
  }, 60_000);

  it('unthrottled: the hand-made batches of the same run and the ratio to them', async () => {
    const report = await runProducerBench({ durationMs: 300 });
    expect(report.points[0]!.prediction).toBeNull();
    expect(report.baseline).toMatchObject({ batchSize: 1_000, inFlight: 4 });
    expect(report.baseline!.records).toBeGreaterThan(0);
    expect(report.baseline!.ratio).toBeCloseTo(
      report.points[0]!.measured.recordsPerSec / report.baseline!.recordsPerSec,
      9,
    );
  }, 60_000);

  it('a sweep measures one point per value on one broker', async () => {
    const report = await runProducerBench(
      { rateBytesPerSec: 100_000, durationMs: 200 },
      { parameter: 'linger', values: [0, 20] },
    );
    expect(report.params.sweep).toEqual({ parameter: 'linger', values: [0, 20] });
    expect(report.points.map((p) => p.lingerMs)).toEqual([0, 20]);
    expect(report.points.every((p) => p.measured.acked > 0)).toBe(true);
  }, 60_000);

  it('a frozen broker: every send settles (failed or uncertain) by its deadline', async () => {
    const report = await runProducerBench({
      rateBytesPerSec: 500_000,
      durationMs: 1_500,
      stallAfterMs: 300,
      deliveryTimeoutMs: 1_000,
      requestTimeoutMs: 500,
      lingerMs: 5,
    });
    const m = report.points[0]!.measured;
    expect(m.failed + m.uncertain).toBeGreaterThan(0);
    expect(report.stall).toMatchObject({ stalledAfterMs: 300, deliveryTimeoutMs: 1_000 });
    // Timers fire a little late on a busy machine; a send outliving its deadline by more would be a bug.
    expect(report.stall!.maxSettleMs).toBeLessThan(1_000 + 250);
    expect(report.stall!.rssPeakBytes).toBeGreaterThanOrEqual(report.stall!.rssBaselineBytes);
  }, 60_000);
});
