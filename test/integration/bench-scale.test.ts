/**
 * The growth-curve bench as library calls with tiny parameters, against real embedded brokers in child processes
 * (the build's dist/bench/broker-child.js). Figures are never judged here; what is checked is what the curves
 * claim: the points are the ones named, every record produced is fetched, and the start-up curve's recovery reads
 * nothing after a clean shutdown and about the acknowledged tail after a SIGKILL.
 */
import { describe, expect, it } from 'vitest';
import { runScale } from '../../src/bench/scale.js';
import { runStartupCurve } from '../../src/bench/scale-startup.js';
import { UsageError } from '../../src/errors.js';

describe('bench scale', () => {
  it('start-up: a clean restart reads no log bytes; a restart after SIGKILL reads the tail, not the log', async () => {
    const curve = await runStartupCurve({ sizesMb: [3], tailRecords: 200 }, {}, () => undefined);
    expect(curve.points).toHaveLength(1);
    const [p] = curve.points;
    expect(p!.logBytes).toBeGreaterThanOrEqual(3e6);
    expect(p!.clean.recoveryScannedBytes).toBe(0);
    // 200 records of 1,000-byte values, acknowledged (fsynced) before the kill; recovery reads them and no more.
    expect(p!.killed.tailBytes).toBeGreaterThanOrEqual(200 * 1000);
    expect(p!.killed.recoveryScannedBytes).toBe(p!.killed.tailBytes);
  }, 120_000);

  it('runs each point of a curve on a fresh broker and reads back every record produced', async () => {
    const report = await runScale({ sweeps: ['records'], maxRecords: 1000 });
    expect(report.curves).toHaveLength(1);
    const [point] = report.curves[0]!.points;
    expect(report.curves[0]!.points.map((p) => p.value)).toEqual([1000]);
    expect(point).toMatchObject({ records: 1000, fetchedRecords: 1000, batchSize: 1000 });
    expect(point!.brokerPeakRssBytes).toBeGreaterThan(0);
    // One batch over 4 partitions: at least one fsync per partition touched.
    expect(point!.fsyncs).toBeGreaterThanOrEqual(4);
    await expect(runScale({ broker: '127.0.0.1:1', startup: {} })).rejects.toBeInstanceOf(UsageError);
  }, 120_000);
});
