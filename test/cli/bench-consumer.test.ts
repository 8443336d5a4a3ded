/**
 * `crater bench consumer` through the built binary: small record counts, the report's shape and counts only (no
 * timing assertions: speed is measured by running the bench, not by tests).
 */
import { describe, expect, it } from 'vitest';
import { crater } from '../helpers/cli.js';

describe('crater bench consumer', () => {
  it('--json: every path consumed every record, medians of --repeat alternating runs', async () => {
    const r = await crater([
      'bench',
      'consumer',
      '--records',
      '3000',
      '--repeat',
      '2',
      '--exec-batch-size',
      '1000',
      '--json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as Record<string, any>;
    expect(report.kind).toBe('consumer');
    expect(report.params).toMatchObject({
      records: 3000,
      maxSize: 500,
      fetchSize: 1000,
      repeat: 2,
      execCommand: 'cat > /dev/null',
    });
    expect(report.fetch.records).toBe(3000);
    expect(report.batchConsumer.records).toBe(3000);
    expect(report.batchConsumer.batches).toBeGreaterThanOrEqual(6);
    expect(report.exec.records).toBe(3000);
    expect(report.runs.fetch).toHaveLength(2);
    expect(report.runs.batchConsumer).toHaveLength(2);
    // The ratio of the two paths' reported rates (no threshold on either).
    expect(report.batchToFetchRatio).toBe(report.batchConsumer.recordsPerSec / report.fetch.recordsPerSec);
    expect(Number.isFinite(report.batchToFetchRatio)).toBe(true);
    const ratios = report.runs.batchConsumer.map((b: number, i: number) => b / report.runs.fetch[i]);
    expect(report.runs.pairedRatios).toHaveLength(2);
    report.runs.pairedRatios.forEach((r: number, i: number) => expect(r).toBeCloseTo(ratios[i], 9));
    expect(report.pairedRatio).toBeCloseTo((ratios[0] + ratios[1]) / 2, 9);
    expect(report.params.execBatchSize).toBe(1000);
    expect(report.targets.batchToFetch).toEqual({
      target: 0.9,
      measured: report.pairedRatio,
      met: report.pairedRatio >= 0.9,
    });
    expect(report.targets.execRecordsPerSec.measured).toBe(report.exec.recordsPerSec);
    // The embedded broker reports its CPU time, so both sides have a per-record cost.
    for (const phase of [report.fetch, report.batchConsumer, report.exec]) {
      expect(phase.clientUsPerRecord).toBeGreaterThan(0);
      expect(phase.brokerUsPerRecord).toBeGreaterThan(0);
    }
  }, 120_000);

  it('--no-exec --csv: one row per path', async () => {
    const r = await crater(['bench', 'consumer', '--records', '1000', '--repeat', '1', '--no-exec', '--csv']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe(
      'path,records,batches,wall_ms,records_per_sec,mb_per_sec,client_us_per_record,broker_us_per_record',
    );
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 2).join(','))).toEqual([
      'fetch,1000',
      'batch-consumer,1000',
    ]);
  }, 120_000);
});
