/** The bench renderers over a hand-built report: CSV rows and columns, the fsync median, the sweep chart. */
import { describe, expect, it } from 'vitest';
import type { BatchVsSingleReport } from '../../../src/bench/batch-vs-single.js';
import type { ThroughputReport } from '../../../src/bench/throughput.js';
import {
  batchVsSingleCsv,
  batchVsSingleSummary,
  floorsSummary,
  medianCount,
  modeRows,
  phaseRows,
  sweepChart,
  throughputCsv,
  throughputNotes,
} from '../../../src/cli/render/bench.js';

const s = (median: number, min = median, max = median) => ({ median, min, max });
const lat = { p50: 0.5, p90: 0.9, p99: 1.5, p999: 2, max: 3, count: 10 };
const broker = {
  address: '127.0.0.1:1',
  backend: 'moonmq' as const,
  embedded: true,
  serverName: 'crater',
  serverVersion: '0.1.0',
  acks: 'leader' as const,
};

const report: BatchVsSingleReport = {
  kind: 'batch-vs-single',
  broker,
  params: {
    records: 400,
    valueSize: 100,
    keySize: 8,
    partitions: 4,
    codec: 'none',
    repeat: 3,
    idempotent: false,
    warmupSingles: 2000,
  },
  single: {
    wallMs: s(400, 300, 500),
    recordsPerSec: s(1000),
    frames: 400,
    fsyncs: [400, 401, 400],
    latencyMs: lat,
    cpuUsPerRecord: { broker: 60, client: 40 },
    brokerFsyncMs: { p50: [0.4, 0.5, 0.4], p99: [0.9, 1, 0.8] },
  },
  batch: { wallMs: s(4, 3, 5), recordsPerSec: s(100_000), frames: 1, batchSize: 400, fsyncs: [4, 4, 4] },
  speedup: 100,
  sweep: [
    { batchSize: 1, frames: 400, wallMs: s(400), recordsPerSec: s(1000), fsyncs: [400] },
    { batchSize: 100, frames: 4, wallMs: s(8), recordsPerSec: s(50_000), fsyncs: [16] },
  ],
  floors: {
    rttMs: { ...lat, p50: 0.03, p99: 0.05 },
    fsyncMs: { ...lat, p50: 0.5, p99: 1 },
    perRecordMs: 0.53,
    perRecordMeanMs: 0.8,
    batch: { files: 4, bytesPerFile: 13_700, fsyncMs: { ...lat, p50: 1.2, p99: 3 }, ms: 1.23 },
  },
  singleOverFloor: 1.8867,
  singleOverMeanFloor: 1.25,
  p99OverFsyncP99: 1.5,
  batchOverFloor: 3.252,
  targets: {
    batchMedianMs: { target: 1, measured: 4, met: false },
    floorRatio: { target: 1.3, measured: 1.8867, met: false },
    p99OverFsyncP99: { target: 3, measured: 1.5, met: true },
  },
};

describe('batch-vs-single rendering', () => {
  it('the floors line: both floors, their sum and single mode against them', () => {
    expect(floorsSummary(report)).toBe(
      'floors: loopback round trip p50 0.030 ms (p99 0.050 ms), fsync p50 0.500 ms (p99 1.000 ms), sum 0.530 ms per record; single mode 1.89x the floor (1.25x the sum of the means, 0.800 ms), per-record p99 1.5x the fsync p99; batch floor 1.230 ms (round trip + 4 fsyncs at once of 13700 B each, p50 1.200 ms), batch mode 3.25x it',
    );
  });

  it('CSV: a header, single and batch rows, one row per sweep size, numbers unformatted', () => {
    const lines = batchVsSingleCsv(report).split('\n');
    expect(lines).toHaveLength(5);
    const header = lines[0]!.split(',');
    const row = (i: number) => Object.fromEntries(lines[i]!.split(',').map((v, j) => [header[j], v]));
    expect(row(1)).toMatchObject({
      mode: 'single',
      frames: '400',
      wall_ms_median: '400',
      wall_ms_min: '300',
      fsyncs_median: '400',
      p99_ms: '1.5',
      speedup: '',
    });
    expect(row(2)).toMatchObject({
      mode: 'batch',
      batch_size: '400',
      frames: '1',
      records_per_sec_median: '100000',
      fsyncs_median: '4',
      speedup: '100',
    });
    expect(row(4)).toMatchObject({ mode: 'sweep', batch_size: '100', frames: '4', fsyncs_median: '16' });
  });

  it('idempotent: the batch row names the 1,024-record cap, the summary says which requests were timed', () => {
    const idem: BatchVsSingleReport = {
      ...report,
      params: { ...report.params, records: 3000, idempotent: true },
      batch: { ...report.batch, frames: 3, batchSize: 1024 },
      sweep: null,
    };
    const lines = batchVsSingleCsv(idem).split('\n');
    const header = lines[0]!.split(',');
    const batchRow = Object.fromEntries(lines[2]!.split(',').map((v, j) => [header[j], v]));
    expect(batchRow).toMatchObject({ mode: 'batch', batch_size: '1024', records: '3000', frames: '3' });
    expect(batchVsSingleSummary(idem)).toMatch(
      /idempotent producer: PRODUCE_IDEMPOTENT per record, batches of at most 1,024 \(3 per repeat\)/,
    );
    expect(batchVsSingleSummary(report)).not.toMatch(/idempotent/);
  });

  it('rows: latency only on the single row; fsyncs shown as the middle repeat', () => {
    const rows = modeRows(report);
    expect(rows.map((r) => r.mode)).toEqual(['single', 'batch', 'sweep 1', 'sweep 100']);
    expect(rows[0]!.p50).toBe(0.5);
    expect(rows[1]!.p50).toBeNull();
    expect(medianCount([401, 400, 400])).toBe(400);
    expect(medianCount(null)).toBeNull();
  });

  it('chart: the fastest size gets the full width, others in proportion (at least one block)', () => {
    const lines = sweepChart(report, 20).split('\n');
    expect(lines[0]).toBe('records/s by batch size');
    expect((lines[2]!.match(/█/g) ?? []).length).toBe(20);
    expect((lines[1]!.match(/█/g) ?? []).length).toBe(1);
    expect(lines[2]).toContain('50,000 rec/s');
    expect(sweepChart({ ...report, sweep: null })).toBe('');
  });
});

describe('throughput rendering', () => {
  it('CSV: one row per phase, null RSS and fsyncs as empty cells', () => {
    const phase = {
      records: 1000,
      bytes: 108_000,
      requests: 1,
      wallMs: 2,
      recordsPerSec: 500_000,
      mbPerSec: 54,
      latencyMs: lat,
    };
    const t: ThroughputReport = {
      kind: 'throughput',
      broker,
      params: {
        records: 1000,
        durationMs: null,
        batchSize: 1000,
        inFlight: 1,
        connections: 1,
        fetchSize: 1000,
        fetchInFlight: 1,
        restartBeforeFetch: false,
        fetchDecode: 'table',
        valueSize: 100,
        keySize: 8,
        partitions: 4,
        codec: 'none',
        ratePerSec: null,
        vsPartitions: null,
      },
      produce: {
        ...phase,
        brokerPeakRssBytes: 64_000_000,
        fsyncs: 4,
        recordsPerFsync: 250,
        brokerFsync: { count: 4, meanMs: 0.2, p50Ms: 0.2, p99Ms: 0.3, busyShare: 0.1 },
        brokerCpuNsPerRecord: 900,
        clientCpuNsPerRecord: 300,
      },
      fetch: {
        ...phase,
        brokerPeakRssBytes: null,
        fsyncs: null,
        recordsPerFsync: null,
        brokerFsync: null,
        brokerCpuNsPerRecord: null,
        clientCpuNsPerRecord: 200,
      },
      partitionScaling: null,
      produceFloor: null,
    };
    const lines = throughputCsv(t).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]!.endsWith(',partitions,records_per_fsync,fsync_mean_ms,partition_scaling_ratio')).toBe(true);
    expect(lines[1]).toBe('produce,1000,108000,1,2,500000,54,0.5,1.5,2,3,64000000,4,900,300,4,250,0.2,');
    expect(lines[2]!.endsWith(',,,200,4,,,')).toBe(true);
    expect(throughputNotes(t)).toEqual([
      'produce: 250.0 records per fsync; broker fsyncs p50 0.200 ms, p99 0.300 ms, busy 10% of wall time per partition',
    ]);
    const scaled = {
      ...t,
      params: { ...t.params, partitions: 64, vsPartitions: 4 },
      partitionScaling: {
        partitions: 4,
        produce: { ...t.produce, recordsPerSec: 1_000_000 },
        ratio: 0.5,
        rounds: [0.5],
      },
    };
    expect(throughputNotes(scaled)[1]).toBe('64 partitions: 0.50x the records/s of 4 partitions');
    const fsyncMs = { ...lat, p50: 2, p99: 4 };
    const floor = { files: 4, bytesPerFile: 34_500, fsyncMs, rttMsP50: 0.1, batchMs: 2.1 };
    const floored = { ...t, produceFloor: { ...floor, ceilingRecordsPerSec: 476_190, ofCeiling: 0.25 } };
    expect(throughputNotes(floored)[1]).toBe(
      'disk floor: one batch = round trip p50 0.100 ms + 4 fsyncs at once of 34,500 B each, p50 2.000 ms (p99 4.000) = 2.100 ms: at most 476,190 records/s with one batch in flight; produce ran at 25% of it',
    );
    const unbounded = { ...t, produceFloor: { ...floor, ceilingRecordsPerSec: null, ofCeiling: null } };
    expect(throughputNotes(unbounded)[1]).toMatch(/= 2\.100 ms \(no ceiling with more than one batch in flight/);
    const rounds = { ...scaled, partitionScaling: { ...scaled.partitionScaling, rounds: [0.41, 0.5, 0.66] } };
    expect(throughputNotes(rounds)[1]).toBe(
      '64 partitions: 0.50x the records/s of 4 partitions (median of 3 interleaved rounds, 0.41–0.66x)',
    );
    expect(phaseRows(scaled).map((r) => [r.phase, r.recordsPerSec])).toEqual([
      ['produce', 500_000],
      ['fetch', 500_000],
      ['produce, 4 partitions', 1_000_000],
    ]);
    // The --vs-partitions phase is a CSV row of its own, with its partition count and the ratio.
    const csvRows = throughputCsv(scaled).split('\n');
    expect(csvRows).toHaveLength(4);
    expect(csvRows[1]!.endsWith(',64,250,0.2,')).toBe(true);
    expect(csvRows[3]!.startsWith('"produce, 4 partitions",1000,')).toBe(true);
    expect(csvRows[3]!.endsWith(',4,250,0.2,0.5')).toBe(true);
  });
});
