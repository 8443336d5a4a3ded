/**
 * Rendering of the bench reports: table rows, CSV (one header line, one row per mode or phase, numbers unformatted
 * so a spreadsheet can sum them) and a plain-text bar chart of records/s by batch size.
 */
import type { BatchVsSingleReport, ModeFigures } from '../../bench/batch-vs-single.js';
import type { Spread } from '../../bench/stats.js';
import type { PhaseFigures, ProduceFloor, ThroughputReport } from '../../bench/throughput.js';
import { formatBytes, formatCount, formatDuration } from './format.js';
import type { Column } from './table.js';

export interface ModeRow {
  mode: string;
  frames: number;
  wallMs: Spread;
  recordsPerSec: Spread;
  fsyncs: number[] | null;
  p50: number | null;
  p99: number | null;
}

const rate = (n: number): string => formatCount(Math.round(n));
const range = (s: Spread, f: (n: number) => string): string => `${f(s.min)} – ${f(s.max)}`;

/** The middle fsync count of the repeats (they rarely differ: the count is a property of the workload). */
export function medianCount(counts: readonly number[] | null): number | null {
  if (!counts || counts.length === 0) return null;
  return [...counts].sort((a, b) => a - b)[(counts.length - 1) >> 1]!;
}

export function modeRows(report: BatchVsSingleReport): ModeRow[] {
  const row = (mode: string, m: ModeFigures, p?: { p50: number; p99: number }): ModeRow => ({
    mode,
    frames: m.frames,
    wallMs: m.wallMs,
    recordsPerSec: m.recordsPerSec,
    fsyncs: m.fsyncs,
    p50: p?.p50 ?? null,
    p99: p?.p99 ?? null,
  });
  const rows = [row('single', report.single, report.single.latencyMs), row('batch', report.batch)];
  for (const s of report.sweep ?? []) rows.push(row(`sweep ${s.batchSize}`, { ...s, frames: s.frames }));
  return rows;
}

export function modeColumns(): Column<ModeRow>[] {
  return [
    { header: 'mode', value: (r) => r.mode },
    { header: 'frames', value: (r) => formatCount(r.frames), align: 'right' },
    { header: 'wall (median)', value: (r) => formatDuration(r.wallMs.median), align: 'right' },
    { header: 'wall (min – max)', value: (r) => range(r.wallMs, formatDuration), align: 'right' },
    { header: 'records/s (median)', value: (r) => rate(r.recordsPerSec.median), align: 'right' },
    { header: 'fsyncs', value: (r) => medianCount(r.fsyncs) ?? '–', align: 'right' },
    { header: 'p50', value: (r) => (r.p50 === null ? '' : formatDuration(r.p50)), align: 'right' },
    { header: 'p99', value: (r) => (r.p99 === null ? '' : formatDuration(r.p99)), align: 'right' },
  ];
}

export function batchVsSingleSummary(report: BatchVsSingleReport): string {
  const p = report.params;
  const b = report.broker;
  const who = b.embedded
    ? `embedded ${b.serverName ?? 'crater'} broker (acks=${b.acks})`
    : `${b.serverName ?? 'unknown'} broker at ${b.address}`;
  const idem = p.idempotent
    ? `; idempotent producer: PRODUCE_IDEMPOTENT per record, batches of at most ${formatCount(report.batch.batchSize)} (${formatCount(report.batch.frames)} per repeat)`
    : '';
  return `${formatCount(p.records)} records of ${p.valueSize} B (key ${p.keySize} B), ${p.partitions} partitions, codec ${p.codec}, ${who}${idem}; median of ${p.repeat}`;
}

/** The floors line: round trip and fsync, their sum per record, and single mode against it. */
export function floorsSummary(report: BatchVsSingleReport): string {
  const f = report.floors;
  const ms = (n: number): string => `${n.toFixed(3)} ms`;
  return `floors: loopback round trip p50 ${ms(f.rttMs.p50)} (p99 ${ms(f.rttMs.p99)}), fsync p50 ${ms(f.fsyncMs.p50)} (p99 ${ms(f.fsyncMs.p99)}), sum ${ms(f.perRecordMs)} per record; single mode ${report.singleOverFloor.toFixed(2)}x the floor (${report.singleOverMeanFloor.toFixed(2)}x the sum of the means, ${ms(f.perRecordMeanMs)}), per-record p99 ${report.p99OverFsyncP99.toFixed(1)}x the fsync p99${batchFloor(report)}`;
}

/** The batch floor's clause: the batch's partition fsyncs at once, plus a round trip, and batch mode against it. */
function batchFloor(report: BatchVsSingleReport): string {
  const b = report.floors.batch;
  if (!b || report.batchOverFloor === null) return '';
  return `; batch floor ${b.ms.toFixed(3)} ms (round trip + ${b.files} fsyncs at once of ${b.bytesPerFile} B each, p50 ${b.fsyncMs.p50.toFixed(3)} ms), batch mode ${report.batchOverFloor.toFixed(2)}x it`;
}

const csvCell = (v: string | number | null): string =>
  v === null
    ? ''
    : typeof v === 'number'
      ? String(Number(v.toFixed(6)))
      : /[",\n]/.test(v)
        ? `"${v.replaceAll('"', '""')}"`
        : v;
const csv = (rows: ReadonlyArray<ReadonlyArray<string | number | null>>): string =>
  rows.map((r) => r.map(csvCell).join(',')).join('\n');

export function batchVsSingleCsv(report: BatchVsSingleReport): string {
  const header = [
    'mode',
    'batch_size',
    'records',
    'frames',
    'wall_ms_median',
    'wall_ms_min',
    'wall_ms_max',
    'records_per_sec_median',
    'records_per_sec_min',
    'records_per_sec_max',
    'fsyncs_median',
    'p50_ms',
    'p99_ms',
    'speedup',
  ];
  const n = report.params.records;
  const line = (mode: string, batchSize: number | null, r: ModeRow, speedup: number | null) => [
    mode,
    batchSize,
    n,
    r.frames,
    r.wallMs.median,
    r.wallMs.min,
    r.wallMs.max,
    r.recordsPerSec.median,
    r.recordsPerSec.min,
    r.recordsPerSec.max,
    medianCount(r.fsyncs),
    r.p50,
    r.p99,
    speedup,
  ];
  const rows = modeRows(report);
  const out = [
    header,
    line('single', 1, rows[0]!, null),
    line('batch', report.batch.batchSize, rows[1]!, report.speedup),
  ];
  for (const [i, s] of (report.sweep ?? []).entries()) out.push(line('sweep', s.batchSize, rows[i + 2]!, null));
  return csv(out);
}

/** Horizontal bars, one per batch size, scaled to the fastest; plain characters so any terminal and pipe show it. */
export function sweepChart(report: BatchVsSingleReport, width = 40): string {
  const sweep = report.sweep ?? [];
  if (sweep.length === 0) return '';
  const top = Math.max(...sweep.map((s) => s.recordsPerSec.median));
  const label = Math.max(...sweep.map((s) => String(s.batchSize).length));
  const lines = sweep.map((s) => {
    const len = top > 0 ? Math.max(1, Math.round((s.recordsPerSec.median / top) * width)) : 0;
    return `${String(s.batchSize).padStart(label)} │${'█'.repeat(len)}${' '.repeat(width - len)} ${rate(s.recordsPerSec.median)} rec/s`;
  });
  return ['records/s by batch size', ...lines].join('\n');
}

export interface PhaseRow extends PhaseFigures {
  phase: string;
  /** Partitions of the phase's topic. */
  partitions: number;
  /** On the --vs-partitions row: the main produce phase's records/s ÷ this row's (partitionScaling.ratio). */
  scalingRatio: number | null;
}

export function phaseRows(report: ThroughputReport): PhaseRow[] {
  const partitions = report.params.partitions;
  const rows: PhaseRow[] = [
    { phase: 'produce', ...report.produce, partitions, scalingRatio: null },
    { phase: 'fetch', ...report.fetch, partitions, scalingRatio: null },
  ];
  const vs = report.partitionScaling;
  if (vs) {
    rows.push({
      phase: `produce, ${vs.partitions} partitions`,
      ...vs.produce,
      partitions: vs.partitions,
      scalingRatio: vs.ratio,
    });
  }
  return rows;
}

/** The lines under the table: group commit and the fsyncs' own time, the disk's floor, the partition-scaling ratio. */
export function throughputNotes(report: ThroughputReport): string[] {
  const lines: string[] = [];
  const p = report.produce;
  if (p.recordsPerFsync !== null && p.brokerFsync) {
    const f = p.brokerFsync;
    lines.push(
      `produce: ${p.recordsPerFsync.toFixed(1)} records per fsync; broker fsyncs p50 ${f.p50Ms.toFixed(3)} ms, p99 ${f.p99Ms.toFixed(3)} ms, busy ${(100 * f.busyShare).toFixed(0)}% of wall time per partition`,
    );
  }
  const floor = report.produceFloor;
  if (floor) lines.push(floorNote(floor));
  const vs = report.partitionScaling;
  if (vs) {
    lines.push(
      `${report.params.partitions} partitions: ${vs.ratio.toFixed(2)}x the records/s of ${vs.partitions} partitions${roundsNote(vs.rounds)}`,
    );
  }
  return lines;
}

/** The disk's floor under the produce phase: one batch's round trip and fsyncs, and the ceiling it sets. */
function floorNote(f: ProduceFloor): string {
  const head = `disk floor: one batch = round trip p50 ${f.rttMsP50.toFixed(3)} ms + ${f.files} fsyncs at once of ${formatCount(f.bytesPerFile)} B each, p50 ${f.fsyncMs.p50.toFixed(3)} ms (p99 ${f.fsyncMs.p99.toFixed(3)}) = ${f.batchMs.toFixed(3)} ms`;
  if (f.ceilingRecordsPerSec === null)
    return `${head} (no ceiling with more than one batch in flight: group commit may share fsyncs)`;
  return `${head}: at most ${rate(f.ceilingRecordsPerSec)} records/s with one batch in flight; produce ran at ${(100 * f.ofCeiling!).toFixed(0)}% of it`;
}

/** The spread behind a --vs-partitions ratio: how many interleaved rounds it is the median of, lowest to highest. */
function roundsNote(rounds: readonly number[]): string {
  if (rounds.length < 2) return '';
  return ` (median of ${rounds.length} interleaved rounds, ${Math.min(...rounds).toFixed(2)}–${Math.max(...rounds).toFixed(2)}x)`;
}

export function phaseColumns(): Column<PhaseRow>[] {
  return [
    { header: 'phase', value: (r) => r.phase },
    { header: 'records', value: (r) => formatCount(r.records), align: 'right' },
    { header: 'requests', value: (r) => formatCount(r.requests), align: 'right' },
    { header: 'wall', value: (r) => formatDuration(r.wallMs), align: 'right' },
    { header: 'records/s', value: (r) => rate(r.recordsPerSec), align: 'right' },
    { header: 'MB/s', value: (r) => r.mbPerSec.toFixed(1), align: 'right' },
    { header: 'p50', value: (r) => formatDuration(r.latencyMs.p50), align: 'right' },
    { header: 'p99', value: (r) => formatDuration(r.latencyMs.p99), align: 'right' },
    { header: 'p99.9', value: (r) => formatDuration(r.latencyMs.p999), align: 'right' },
    { header: 'max', value: (r) => formatDuration(r.latencyMs.max), align: 'right' },
    {
      header: 'broker peak RSS',
      value: (r) => (r.brokerPeakRssBytes === null ? '–' : formatBytes(r.brokerPeakRssBytes)),
      align: 'right',
    },
    { header: 'fsyncs', value: (r) => (r.fsyncs === null ? '–' : formatCount(r.fsyncs)), align: 'right' },
    {
      header: 'broker CPU/rec',
      value: (r) => (r.brokerCpuNsPerRecord === null ? '–' : `${formatCount(r.brokerCpuNsPerRecord)} ns`),
      align: 'right',
    },
    { header: 'client CPU/rec', value: (r) => `${formatCount(r.clientCpuNsPerRecord)} ns`, align: 'right' },
  ];
}

export function throughputSummary(report: ThroughputReport): string {
  const p = report.params;
  const b = report.broker;
  const amount =
    p.records !== null ? `${formatCount(p.records)} records` : `${formatDuration(p.durationMs ?? 0)} of records`;
  const who = b.embedded
    ? `embedded ${b.serverName ?? 'crater'} broker (acks=${b.acks})`
    : `${b.serverName ?? 'unknown'} broker at ${b.address}`;
  return `${amount} of ${p.valueSize} B in batches of ${formatCount(p.batchSize)}, ${p.inFlight} in flight × ${p.connections} connection(s), fetch ${formatCount(p.fetchSize)} × ${p.fetchInFlight} in flight${p.restartBeforeFetch ? ' after a broker restart' : ''}, ${p.partitions} partitions, codec ${p.codec}, ${who}; latency per request from its intended send time`;
}

export function throughputCsv(report: ThroughputReport): string {
  const header = [
    'phase',
    'records',
    'bytes',
    'requests',
    'wall_ms',
    'records_per_sec',
    'mb_per_sec',
    'p50_ms',
    'p99_ms',
    'p999_ms',
    'max_ms',
    'broker_peak_rss_bytes',
    'fsyncs',
    'broker_cpu_ns_per_record',
    'client_cpu_ns_per_record',
    'partitions',
    'records_per_fsync',
    'fsync_mean_ms',
    'partition_scaling_ratio',
  ];
  const rows = phaseRows(report).map((r) => [
    r.phase,
    r.records,
    r.bytes,
    r.requests,
    r.wallMs,
    r.recordsPerSec,
    r.mbPerSec,
    r.latencyMs.p50,
    r.latencyMs.p99,
    r.latencyMs.p999,
    r.latencyMs.max,
    r.brokerPeakRssBytes,
    r.fsyncs,
    r.brokerCpuNsPerRecord,
    r.clientCpuNsPerRecord,
    r.partitions,
    r.recordsPerFsync,
    r.brokerFsync?.meanMs ?? null,
    r.scalingRatio,
  ]);
  return csv([header, ...rows]);
}
