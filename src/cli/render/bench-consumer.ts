/** Human, table and CSV renderings of `bench consumer`'s report. */
import type { ConsumePhase, ConsumerBenchReport } from '../../bench/consumer-bench.js';
import { formatCount, formatDuration } from './format.js';
import type { Column } from './table.js';

export interface ConsumerRow extends ConsumePhase {
  path: string;
}

export function consumerRows(report: ConsumerBenchReport): ConsumerRow[] {
  const rows: ConsumerRow[] = [
    { path: 'fetch', ...report.fetch },
    { path: 'batch-consumer', ...report.batchConsumer },
  ];
  if (report.exec) rows.push({ path: 'consume --exec', ...report.exec });
  return rows;
}

export function consumerColumns(): Column<ConsumerRow>[] {
  return [
    { header: 'path', value: (r) => r.path },
    { header: 'records', value: (r) => formatCount(r.records), align: 'right' },
    { header: 'batches', value: (r) => formatCount(r.batches), align: 'right' },
    { header: 'wall', value: (r) => formatDuration(r.wallMs), align: 'right' },
    { header: 'records/s', value: (r) => formatCount(Math.round(r.recordsPerSec)), align: 'right' },
    { header: 'MB/s', value: (r) => r.mbPerSec.toFixed(1), align: 'right' },
    { header: 'client µs/rec', value: (r) => r.clientUsPerRecord.toFixed(2), align: 'right' },
    { header: 'broker µs/rec', value: (r) => r.brokerUsPerRecord?.toFixed(2) ?? '-', align: 'right' },
  ];
}

export function consumerSummary(report: ConsumerBenchReport): string {
  const p = report.params;
  const b = report.broker;
  const who = b.embedded
    ? `embedded ${b.serverName ?? 'crater'} broker (acks=${b.acks})`
    : `${b.serverName ?? 'unknown'} broker at ${b.address}`;
  const exec = p.execCommand === null ? '' : `; consume --exec '${p.execCommand}'`;
  return `${formatCount(p.records)} records of ${p.valueSize} B, ${p.partitions} partitions, fetch ${formatCount(p.fetchSize)}, batch consumer maxSize ${formatCount(p.maxSize)} × ${p.workers} worker(s)${exec}, ${who}; median of ${p.repeat} alternating runs; batch consumer / fetch = ${report.batchToFetchRatio.toFixed(2)} (median of per-run ratios ${report.pairedRatio.toFixed(2)})\n${targetsLine(report)}`;
}

function targetsLine(report: ConsumerBenchReport): string {
  const t = report.targets;
  const verdict = (met: boolean): string => (met ? 'met' : 'not met');
  const ratio = `batch consumer ${t.batchToFetch.measured.toFixed(2)}x fetch in the same run (target >= ${t.batchToFetch.target}x, ${verdict(t.batchToFetch.met)})`;
  const e = t.execRecordsPerSec;
  const exec = e
    ? `; consume --exec ${formatCount(Math.round(e.measured))} records/s (target >= ${formatCount(e.target)}, ${verdict(e.met)})`
    : '';
  return `targets: ${ratio}${exec}`;
}

export function consumerCsv(report: ConsumerBenchReport): string {
  const lines = ['path,records,batches,wall_ms,records_per_sec,mb_per_sec,client_us_per_record,broker_us_per_record'];
  for (const r of consumerRows(report))
    lines.push(
      [
        r.path,
        r.records,
        r.batches,
        r.wallMs.toFixed(3),
        r.recordsPerSec.toFixed(1),
        r.mbPerSec.toFixed(3),
        r.clientUsPerRecord.toFixed(3),
        r.brokerUsPerRecord?.toFixed(3) ?? '',
      ].join(','),
    );
  return lines.join('\n');
}
