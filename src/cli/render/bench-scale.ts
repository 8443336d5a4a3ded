/**
 * Rendering of `bench scale`: per curve a bar chart (produce records/s, produce p99, broker peak RSS; the same
 * helper as `bench producer --sweep`), a table of every point, the start-up table, and the Markdown that
 * `npm run bench` writes to bench-results/scale.md.
 */
import type { ScaleCurve, ScaleParameter, ScalePoint, ScaleReport } from '../../bench/scale.js';
import type { StartupPoint } from '../../bench/scale-startup.js';
import { barChart } from './bar-chart.js';
import { formatBytes, formatCount, formatDuration } from './format.js';
import type { Column } from './table.js';

const n = (v: number): string => formatCount(Math.round(v));
const mib = (b: number | null): string => (b === null ? '–' : formatBytes(b));

export function pointLabel(parameter: ScaleParameter, value: number): string {
  if (parameter === 'value-size') return formatBytes(value);
  return formatCount(value);
}

export function curveChart(curve: ScaleCurve, columns = 80): string {
  const { parameter, points } = curve;
  const series = [
    { title: 'produce records/s', values: points.map((p) => p.produceRecordsPerSec), format: n },
    { title: 'p99', values: points.map((p) => p.produceP99Ms), format: formatDuration },
  ];
  if (points.every((p) => p.brokerPeakRssBytes !== null)) {
    series.push({ title: 'broker RSS', values: points.map((p) => p.brokerPeakRssBytes!), format: formatBytes });
  }
  return barChart(
    parameter,
    points.map((p) => pointLabel(parameter, p.value)),
    series,
    columns,
  );
}

export interface ScaleRow extends ScalePoint {
  parameter: ScaleParameter;
}

export function scaleRows(report: ScaleReport): ScaleRow[] {
  return report.curves.flatMap((c) => c.points.map((p) => ({ ...p, parameter: c.parameter })));
}

export function scaleColumns(): Column<ScaleRow>[] {
  return [
    { header: 'curve', value: (r) => r.parameter },
    { header: 'value', value: (r) => pointLabel(r.parameter, r.value), align: 'right' },
    { header: 'records', value: (r) => formatCount(r.records), align: 'right' },
    { header: 'batch', value: (r) => formatCount(r.batchSize), align: 'right' },
    { header: 'produce rec/s', value: (r) => n(r.produceRecordsPerSec), align: 'right' },
    { header: 'produce p99', value: (r) => formatDuration(r.produceP99Ms), align: 'right' },
    { header: 'fetch rec/s', value: (r) => n(r.fetchRecordsPerSec), align: 'right' },
    { header: 'fetch p99', value: (r) => formatDuration(r.fetchP99Ms), align: 'right' },
    { header: 'broker peak RSS', value: (r) => mib(r.brokerPeakRssBytes), align: 'right' },
    { header: 'fsyncs', value: (r) => (r.fsyncs === null ? '–' : formatCount(r.fsyncs)), align: 'right' },
  ];
}

export function startupColumns(): Column<StartupPoint>[] {
  return [
    { header: 'data dir', value: (r) => `${formatCount(r.sizeMb)} MB`, align: 'right' },
    { header: 'clean: start', value: (r) => formatDuration(r.clean.wallMs), align: 'right' },
    { header: 'clean: Broker.start', value: (r) => formatDuration(r.clean.brokerStartMs), align: 'right' },
    { header: 'clean: log read', value: (r) => formatBytes(r.clean.recoveryScannedBytes), align: 'right' },
    { header: 'SIGKILL: start', value: (r) => formatDuration(r.killed.wallMs), align: 'right' },
    { header: 'SIGKILL: Broker.start', value: (r) => formatDuration(r.killed.brokerStartMs), align: 'right' },
    { header: 'SIGKILL: log read', value: (r) => formatBytes(r.killed.recoveryScannedBytes), align: 'right' },
    { header: 'tail since clean stop', value: (r) => formatBytes(r.killed.tailBytes), align: 'right' },
  ];
}

function markdownTable<Row>(columns: readonly Column<Row>[], rows: readonly Row[]): string[] {
  const cell = (c: Column<Row>, r: Row): string => String(c.value(r) ?? '');
  return [
    `| ${columns.map((c) => c.header).join(' | ')} |`,
    `| ${columns.map((c) => (c.align === 'right' ? '---:' : '---')).join(' | ')} |`,
    ...rows.map((r) => `| ${columns.map((c) => cell(c, r)).join(' | ')} |`),
  ];
}

/** Charts in code blocks, then the tables: what bench-results/scale.md holds and the README quotes. */
export function scaleMarkdown(report: ScaleReport): string {
  const out: string[] = [];
  for (const curve of report.curves) out.push('```', curveChart(curve, 100), '```', '');
  out.push(...markdownTable(scaleColumns(), scaleRows(report)), '');
  if (report.startup) out.push(...markdownTable(startupColumns(), report.startup.points), '');
  return out.join('\n');
}
