/**
 * `crater bench batch-vs-single` and `crater bench throughput` through the built binary (`npm test` builds first, so
 * dist/ and the manifest are current). Small record counts; no timing assertions.
 */
import { describe, expect, it } from 'vitest';
import { crater } from '../helpers/cli.js';

const small = ['--records', '20', '--repeat', '1', '--warmup-singles', '20'];

describe('crater bench batch-vs-single', () => {
  it('--json prints the report object alone on stdout', async () => {
    const r = await crater(['bench', 'batch-vs-single', ...small, '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as Record<string, any>;
    expect(report.kind).toBe('batch-vs-single');
    expect(report.params).toMatchObject({ records: 20, repeat: 1, partitions: 4, warmupSingles: 20 });
    expect(report.single.frames).toBe(20);
    expect(report.single.fsyncs).toEqual([20]);
    // No timing threshold: the speedup is the ratio of the two modes' reported median wall times, and finite.
    expect(report.speedup).toBe(report.single.wallMs.median / report.batch.wallMs.median);
    expect(Number.isFinite(report.speedup)).toBe(true);
    expect(report.check).toBeUndefined();
  }, 60_000);

  it('--csv prints a header and one row per mode, a sweep row per batch size', async () => {
    const r = await crater(['bench', 'batch-vs-single', ...small, '--csv', '--batch-sizes', '5,20']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^mode,batch_size,records,frames,wall_ms_median,/);
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 4).join(','))).toEqual([
      'single,1,20,20',
      'batch,20,20,1',
      'sweep,5,20,4',
      'sweep,20,20,1',
    ]);
  }, 60_000);

  it('--min-speedup 1e9 still prints the report, says why on stderr and exits 5', async () => {
    const r = await crater(['bench', 'batch-vs-single', ...small, '--min-speedup', '1e9', '--json']);
    expect(r.code).toBe(5);
    const report = JSON.parse(r.stdout) as Record<string, any>;
    expect(report.check).toEqual({ minSpeedup: 1e9, passed: false });
    expect(r.stderr).toMatch(/below --min-speedup/);
  }, 60_000);

  it('--idempotent --json reports both modes through the idempotent producer', async () => {
    const r = await crater(['bench', 'batch-vs-single', ...small, '--idempotent', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as Record<string, any>;
    expect(report.params).toMatchObject({ records: 20, idempotent: true });
    expect(report.single).toMatchObject({ frames: 20, fsyncs: [20] });
    expect(report.batch).toMatchObject({ frames: 1, batchSize: 20 });
  }, 60_000);

  it('refuses --idempotent sweeps over 1,024, throughput --idempotent and --acks with --broker as usage errors (exit 2)', async () => {
    const warmup = await crater(['bench', 'batch-vs-single', '--warmup-singles', '-1']);
    expect(warmup.code).toBe(2);
    expect(warmup.stdout).toBe('');
    const sweep = await crater(['bench', 'batch-vs-single', '--idempotent', '--batch-sizes', '10,2000']);
    expect(sweep.code).toBe(2);
    expect(sweep.stderr).toMatch(/integers 1\.\.1024/);
    expect(sweep.stdout).toBe('');
    const idem = await crater(['bench', 'throughput', '--idempotent']);
    expect(idem.code).toBe(2);
    expect(idem.stderr).toMatch(/not available for bench throughput/);
    const acks = await crater(['bench', 'batch-vs-single', '--broker', '127.0.0.1:1', '--acks', 'none']);
    expect(acks.code).toBe(2);
    expect(acks.stderr).toMatch(/embedded broker only/);
  }, 60_000);
});

describe('crater bench throughput', () => {
  it('--json reports both phases with every record produced and fetched', async () => {
    const r = await crater([
      'bench',
      'throughput',
      '--records',
      '2000',
      '--batch-size',
      '500',
      '--in-flight',
      '2',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as Record<string, any>;
    expect(report.produce).toMatchObject({ records: 2000, requests: 4 });
    expect(report.fetch.records).toBe(2000);
    expect(Object.keys(report.produce.latencyMs)).toEqual(['p50', 'p90', 'p99', 'p999', 'max', 'count']);
    // The disk's floor: a batch of 500 records of 8 + 100 B (137 B each on disk) over 4 partitions. Two in flight:
    // group commit may share fsyncs between them, so the floor sets no ceiling.
    const floor = report.produceFloor;
    expect(floor).toMatchObject({ files: 4, bytesPerFile: 17_125, ceilingRecordsPerSec: null, ofCeiling: null });
    expect(floor.fsyncMs.count).toBe(20);
    expect(floor.batchMs).toBeCloseTo(floor.rttMsP50 + floor.fsyncMs.p50, 9);
  }, 60_000);

  it('--restart-before-fetch fetches every record from the restarted broker, FETCHes pipelined', async () => {
    const args = ['--records', '2000', '--restart-before-fetch', '--fetch-in-flight', '2', '--json'];
    const r = await crater(['bench', 'throughput', ...args]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as Record<string, any>;
    expect(report.params).toMatchObject({ restartBeforeFetch: true, fetchInFlight: 2 });
    expect(report.fetch.records).toBe(2000);
    // One batch of 1,000 in flight: the floor caps produce at 1,000 records per batchMs.
    const floor = report.produceFloor;
    expect(floor.ceilingRecordsPerSec).toBeCloseTo(1_000_000 / floor.batchMs, 6);
    expect(floor.ofCeiling).toBeCloseTo(report.produce.recordsPerSec / floor.ceilingRecordsPerSec, 9);
  }, 60_000);

  it('--vs-partitions adds a produce row for that many partitions and prints the ratio and group commit', async () => {
    const r = await crater(['bench', 'throughput', '--records', '1000', '--partitions', '2', '--vs-partitions', '1']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/produce, 1 partitions/);
    expect(r.stdout).toMatch(
      /^2 partitions: \d+\.\d\dx the records\/s of 1 partitions \(median of 5 interleaved rounds, [\d.]+–[\d.]+x\)$/m,
    );
    expect(r.stdout).toMatch(/^produce: [\d.]+ records per fsync; broker fsyncs p50 [\d.]+ ms/m);
  }, 60_000);

  it('--csv prints a header and a produce and a fetch row', async () => {
    const r = await crater(['bench', 'throughput', '--records', '1000', '--csv']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.map((l) => l.split(',')[0])).toEqual(['phase', 'produce', 'fetch']);
    expect(lines[1]!.split(',')[1]).toBe('1000');
  }, 60_000);
});
