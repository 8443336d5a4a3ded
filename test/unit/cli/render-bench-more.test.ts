/**
 * The bench renderers' tables and lines not reached by render.test.ts (batch-vs-single columns, throughput phase
 * columns and summary, the scale start-up table and Markdown), the shared bench flags' helpers, and ora's spinner
 * as crater wraps it on a terminal-like stream.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { BatchVsSingleReport } from '../../../src/bench/batch-vs-single.js';
import type { ScaleReport } from '../../../src/bench/scale.js';
import type { BrokerInfo } from '../../../src/bench/target.js';
import type { ThroughputReport } from '../../../src/bench/throughput.js';
import { modeColumns, modeRows, phaseColumns, phaseRows, throughputSummary } from '../../../src/cli/render/bench.js';
import { benchTarget, refuseIdempotent, underSpinner } from '../../../src/cli/render/bench-flags.js';
import { curveChart, pointLabel, scaleMarkdown, startupColumns } from '../../../src/cli/render/bench-scale.js';
import { createSpinner } from '../../../src/cli/terminal.js';
import { UsageError } from '../../../src/errors.js';

const s = (median: number, min = median, max = median) => ({ median, min, max });
const lat = { p50: 0.5, p90: 0.9, p99: 1.5, p999: 2, max: 3, count: 10 };
const broker: BrokerInfo = {
  address: '127.0.0.1:1',
  backend: 'moonmq' as const,
  embedded: true,
  serverName: 'crater',
  serverVersion: '0.1.0',
  acks: 'leader' as const,
};
const external: BrokerInfo = { ...broker, address: '10.0.0.7:9092', embedded: false, serverName: null, acks: null };

const cells = <Row>(columns: { header: string; value: (r: Row) => unknown }[], row: Row) =>
  Object.fromEntries(columns.map((c) => [c.header, String(c.value(row))]));

describe('batch-vs-single columns', () => {
  it('one cell per figure: medians, the wall range, the middle fsync count, p50/p99 only where measured', () => {
    const report = {
      kind: 'batch-vs-single',
      broker,
      params: { records: 400, valueSize: 100, keySize: 8, partitions: 4, codec: 'none', repeat: 3, idempotent: false },
      single: {
        wallMs: s(400, 300, 500),
        recordsPerSec: s(1000),
        frames: 400,
        fsyncs: [401, 400, 399],
        latencyMs: lat,
      },
      batch: { wallMs: s(4, 3, 5), recordsPerSec: s(100_000), frames: 1, batchSize: 400, fsyncs: null },
      speedup: 100,
    } as unknown as BatchVsSingleReport;
    const [single, batch] = modeRows(report);
    expect(cells(modeColumns(), single!)).toMatchObject({
      mode: 'single',
      frames: '400',
      fsyncs: '400',
      p50: '500 µs',
    });
    const b = cells(modeColumns(), batch!);
    expect(b).toMatchObject({ mode: 'batch', frames: '1', fsyncs: '–', p50: '', p99: '' });
    expect(b['wall (min – max)']).toMatch(/^3.* – 5/);
    expect(b['records/s (median)']).toBe('100,000');
  });
});

describe('throughput rendering', () => {
  const phase = {
    records: 1000,
    bytes: 108_000,
    requests: 1,
    wallMs: 2,
    recordsPerSec: 500_000,
    mbPerSec: 54,
    latencyMs: lat,
  };
  const report = (over: Partial<ThroughputReport['params']>, b = broker): ThroughputReport => ({
    kind: 'throughput',
    broker: b,
    params: {
      records: 1000,
      durationMs: null,
      batchSize: 1000,
      inFlight: 2,
      connections: 3,
      fetchSize: 500,
      fetchInFlight: 4,
      restartBeforeFetch: false,
      fetchDecode: 'table',
      valueSize: 100,
      keySize: 8,
      partitions: 4,
      codec: 'none',
      ratePerSec: null,
      vsPartitions: null,
      ...over,
    },
    produce: {
      ...phase,
      brokerPeakRssBytes: 64 * 1024 * 1024,
      fsyncs: 4,
      recordsPerFsync: 250,
      brokerFsync: null,
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
  });

  it('a row per phase; the broker-side figures read – where the broker is not ours to measure', () => {
    const [produce, fetch] = phaseRows(report({})).map((r) => cells(phaseColumns(), r));
    expect(produce).toMatchObject({
      phase: 'produce',
      records: '1,000',
      requests: '1',
      'records/s': '500,000',
      'MB/s': '54.0',
      fsyncs: '4',
      'broker CPU/rec': '900 ns',
      'client CPU/rec': '300 ns',
    });
    expect(produce!['broker peak RSS']).toMatch(/64/);
    expect(fetch).toMatchObject({
      phase: 'fetch',
      'broker peak RSS': '–',
      fsyncs: '–',
      'broker CPU/rec': '–',
      'client CPU/rec': '200 ns',
    });
  });

  it('the summary names the amount, the pipeline shape and the target', () => {
    expect(throughputSummary(report({}))).toBe(
      '1,000 records of 100 B in batches of 1,000, 2 in flight × 3 connection(s), fetch 500 × 4 in flight, 4 partitions, codec none, embedded crater broker (acks=leader); latency per request from its intended send time',
    );
    const timed = throughputSummary(
      report({ records: null, durationMs: 5000, restartBeforeFetch: true, codec: 'gzip' }, external),
    );
    expect(timed).toMatch(/ of records of 100 B/);
    expect(timed).toContain(
      'in flight after a broker restart, 4 partitions, codec gzip, unknown broker at 10.0.0.7:9092;',
    );
  });
});

describe('bench scale rendering', () => {
  const point = (value: number, rss: number | null) => ({
    value,
    records: 1000,
    batchSize: 100,
    produceRecordsPerSec: value * 10,
    produceP99Ms: 2,
    fetchedRecords: 1000,
    fetchRecordsPerSec: 5000,
    fetchP99Ms: 1,
    brokerPeakRssBytes: rss,
    fsyncs: null,
    wallMs: 10,
  });
  const startup = {
    sizeMb: 100,
    logBytes: 100e6,
    clean: { wallMs: 120, brokerStartMs: 80, recoveryScannedBytes: 0 },
    killed: { wallMs: 300, brokerStartMs: 250, recoveryScannedBytes: 2 * 1024 * 1024, tailBytes: 1024 * 1024 },
  };

  it('value-size points read as bytes, the others as counts', () => {
    expect(pointLabel('value-size', 1024)).toMatch(/KiB|kB|KB/);
    expect(pointLabel('partitions', 1000)).toBe('1,000');
  });

  it('the chart adds a broker RSS series only when every point has one', () => {
    const withRss = curveChart({ parameter: 'partitions', points: [point(1, 10e6), point(8, 20e6)] });
    const without = curveChart({ parameter: 'partitions', points: [point(1, 10e6), point(8, null)] });
    expect(withRss).toContain('broker RSS');
    expect(without).not.toContain('broker RSS');
    expect(without).toContain('produce records/s');
  });

  it('the start-up table has the clean and the SIGKILL columns; the Markdown carries it after the curves', () => {
    const row = cells(startupColumns(), startup);
    expect(row['data dir']).toBe('100 MB');
    expect(row['tail since clean stop']).toBe('1.00 MiB');
    const report: ScaleReport = {
      kind: 'scale',
      broker: null,
      base: { partitions: 1, valueSize: 100, batchSize: 100, connections: 1, inFlight: 1 },
      curves: [{ parameter: 'partitions', points: [point(1, null)] }],
      startup: { partitions: 1, valueSize: 1000, points: [startup] },
    };
    const md = scaleMarkdown(report).split('\n');
    const startupHeader = md.findIndex((l) => l.startsWith('| data dir |'));
    expect(startupHeader).toBeGreaterThan(md.findIndex((l) => l.startsWith('| curve |')));
    expect(md[startupHeader + 1]).toBe(`| ${Array(8).fill('---:').join(' | ')} |`);
    expect(md[startupHeader + 2]).toContain('| 100 MB |');
  });
});

describe('bench flags', () => {
  it('benchTarget maps the flag names onto the bench options', () => {
    expect(benchTarget({ broker: 'h:1', partitions: 2, 'value-size': 10, acks: 'none' })).toEqual({
      broker: 'h:1',
      username: undefined,
      password: undefined,
      acks: 'none',
      partitions: 2,
      valueSize: 10,
    });
  });

  it('--idempotent is a usage error for throughput', () => {
    expect(() => refuseIdempotent(true)).toThrow(UsageError);
    expect(() => refuseIdempotent(false)).not.toThrow();
  });

  it('underSpinner returns what the bench returns and passes a failure on unchanged', async () => {
    const steps: string[] = [];
    expect(
      await underSpinner('bench', async (progress) => {
        progress('step 1');
        steps.push('ran');
        return 42;
      }),
    ).toBe(42);
    expect(steps).toEqual(['ran']);
    const boom = new Error('boom');
    await expect(underSpinner('bench', () => Promise.reject(boom))).rejects.toBe(boom);
  });
});

describe('the terminal spinner', () => {
  it('draws on a TTY-like stream and persists the final line with its symbol', async () => {
    // What ora needs of a tty.WriteStream: the TTY flag, a width and the cursor calls (no-ops on a pipe).
    const cursor = { cursorTo: () => true, clearLine: () => true, moveCursor: () => true };
    const stream = Object.assign(
      new PassThrough(),
      { isTTY: true, columns: 80 },
      cursor,
    ) as unknown as NodeJS.WriteStream;
    let out = '';
    (stream as unknown as PassThrough).on('data', (d: Buffer) => (out += d.toString()));
    const ok = await createSpinner('working', { stream, env: { NO_COLOR: '1' } });
    expect(ok.start().isSpinning).toBe(true);
    ok.text = 'step 2';
    expect(ok.text).toBe('step 2');
    ok.succeed('done');
    expect(ok.isSpinning).toBe(false);
    const bad = await createSpinner('again', { stream, env: { NO_COLOR: '1' } });
    bad.start('trying').fail('failed');
    bad.start().stop();
    expect(out).toContain('✔ done');
    expect(out).toContain('✖ failed');
  });
});
