/**
 * Growth curves: `bench throughput` run once per point while one parameter grows and the others stay at the
 * throughput defaults (4 partitions, 100-byte values, batches of 1,000, one connection, one batch in flight):
 *
 *   records      10^3 … 10^6 (10^7 with maxRecords ≥ 10^7)
 *   value-size   10 B … 64 KiB, at most 64 MiB of values per point (so 1,024 records of 64 KiB)
 *   partitions   1 … 256
 *   connections  1 … 256, each producing one record at a time (batches of 1, awaited), 100 records per connection
 *
 * Each point is a fresh embedded broker (so its peak RSS is the point's own) with a short warm-up. Plus, with
 * `startup`, the broker's start-up time on data dirs of growing size (scale-startup.ts). Returns a report; never
 * prints.
 */
import { UsageError } from '../errors.js';
import type { BrokerInfo, TargetOptions } from './target.js';
import { type StartupCurve, type StartupOptions, runStartupCurve } from './scale-startup.js';
import { type ThroughputReport, ThroughputDefaults, runThroughput } from './throughput.js';

export const SCALE_PARAMETERS = ['records', 'value-size', 'partitions', 'connections'] as const;
export type ScaleParameter = (typeof SCALE_PARAMETERS)[number];

export interface ScaleOptions extends TargetOptions {
  /** Which curves, in this order; default all four. */
  sweeps?: readonly ScaleParameter[];
  /** The records curve stops at this count (default 10^6; 10^7 is opt-in). */
  maxRecords?: number;
  /** Also measure start-up against data dirs of these sizes in MB (embedded broker only); absent: no start-up curve. */
  startup?: StartupOptions;
  onProgress?: (step: string) => void;
}

export interface ScalePoint {
  value: number;
  records: number;
  batchSize: number;
  produceRecordsPerSec: number;
  produceP99Ms: number;
  fetchedRecords: number;
  fetchRecordsPerSec: number;
  fetchP99Ms: number;
  /** The higher of the produce and fetch phases' peaks; null for an external broker. */
  brokerPeakRssBytes: number | null;
  fsyncs: number | null;
  wallMs: number;
}

export interface ScaleCurve {
  parameter: ScaleParameter;
  points: ScalePoint[];
}

export interface ScaleReport {
  kind: 'scale';
  broker: BrokerInfo | null;
  base: { partitions: number; valueSize: number; batchSize: number; connections: number; inFlight: number };
  curves: ScaleCurve[];
  startup: StartupCurve | null;
}

export const MAX_VALUE_BYTES_PER_POINT = 64 * 1024 * 1024;
const FETCH_REPLY_BYTES = 1024 * 1024;

/** The values a curve steps through. */
export function curveValues(parameter: ScaleParameter, maxRecords: number): number[] {
  switch (parameter) {
    case 'records':
      return [1e3, 1e4, 1e5, 1e6, 1e7].filter((n) => n <= maxRecords);
    case 'value-size':
      return [10, 100, 1024, 10 * 1024, 64 * 1024];
    case 'partitions':
    case 'connections':
      return [1, 4, 16, 64, 256];
  }
}

/** The throughput options of one point: the defaults with one parameter moved. */
export function pointOptions(parameter: ScaleParameter, value: number) {
  const d = ThroughputDefaults;
  const base = { records: d.records, batchSize: d.batchSize, partitions: d.partitions, valueSize: d.valueSize };
  switch (parameter) {
    case 'records':
      return { ...base, records: value, connections: 1, warmupRecords: 20_000 };
    case 'value-size': {
      const records = Math.max(1000, Math.min(d.records, Math.floor(MAX_VALUE_BYTES_PER_POINT / value)));
      // Replies near 1 MiB: a 64 KiB value is 16 records per FETCH.
      const fetchSize = Math.max(1, Math.min(d.fetchSize, Math.floor(FETCH_REPLY_BYTES / (value + 64))));
      return { ...base, valueSize: value, records, fetchSize, connections: 1, warmupRecords: Math.min(records, 5000) };
    }
    case 'partitions':
      return { ...base, partitions: value, connections: 1, warmupRecords: 20_000 };
    case 'connections':
      return {
        ...base,
        batchSize: 1,
        connections: value,
        records: Math.max(1000, 100 * value),
        warmupRecords: 10 * value,
      };
  }
}

function point(value: number, report: ThroughputReport, wallMs: number): ScalePoint {
  const { produce, fetch, params } = report;
  const peaks = [produce.brokerPeakRssBytes, fetch.brokerPeakRssBytes].filter((p): p is number => p !== null);
  return {
    value,
    records: produce.records,
    batchSize: params.batchSize,
    produceRecordsPerSec: produce.recordsPerSec,
    produceP99Ms: produce.latencyMs.p99,
    fetchedRecords: fetch.records,
    fetchRecordsPerSec: fetch.recordsPerSec,
    fetchP99Ms: fetch.latencyMs.p99,
    brokerPeakRssBytes: peaks.length > 0 ? Math.max(...peaks) : null,
    fsyncs: produce.fsyncs,
    wallMs,
  };
}

export async function runScale(options: ScaleOptions = {}): Promise<ScaleReport> {
  const sweeps = options.sweeps ?? SCALE_PARAMETERS;
  const maxRecords = options.maxRecords ?? 1e6;
  if (!Number.isInteger(maxRecords) || maxRecords < 1000) throw new UsageError('max records must be at least 1000');
  if (options.startup && options.broker !== undefined) {
    throw new UsageError('the start-up curve needs the embedded broker (it kills and restarts it)');
  }
  const progress = options.onProgress ?? (() => undefined);
  const { sweeps: _s, maxRecords: _m, startup: _st, onProgress: _p, ...target } = options;
  const curves: ScaleCurve[] = [];
  let broker: BrokerInfo | null = null;
  for (const parameter of sweeps) {
    const points: ScalePoint[] = [];
    for (const value of curveValues(parameter, maxRecords)) {
      const step = `${parameter} = ${value}`;
      progress(step);
      const started = performance.now();
      const report = await runThroughput({
        ...target,
        ...pointOptions(parameter, value),
        // The curves are read against each other, not against the disk: no floor per point (256 partitions' would
        // take seconds).
        diskFloor: false,
        onProgress: (s) => progress(`${step}: ${s}`),
      });
      broker ??= report.broker;
      points.push(point(value, report, performance.now() - started));
    }
    curves.push({ parameter, points });
  }
  const startup = options.startup ? await runStartupCurve(options.startup, target, progress) : null;
  const d = ThroughputDefaults;
  return {
    kind: 'scale',
    broker,
    base: { partitions: d.partitions, valueSize: d.valueSize, batchSize: d.batchSize, connections: 1, inFlight: 1 },
    curves,
    startup,
  };
}
