/**
 * Rendering for `crater segments inspect`: the JSON shapes (keys, values and header values as text in the chosen
 * encoding; bigints by the rule of json.ts) and the human tables. The inspector's report objects stay untouched.
 */
import type { ChalkInstance } from 'chalk';
import type {
  Finding,
  InspectLevel,
  InspectReport,
  InspectSummary,
  RecordReport,
  SegmentReport,
} from '../../storage/inspect/types.js';
import { formatBytes, formatCount } from './format.js';

// The levels a command offers as flag options: a small table, loaded with the command, not the inspector.
export { inspectLevels } from '../../storage/inspect/types.js';
export type { InspectLevel } from '../../storage/inspect/types.js';
import type { Column } from './table.js';

export const byteEncodings = ['utf8', 'hex', 'base64'] as const;
export type ByteEncoding = (typeof byteEncodings)[number];

export interface Encodings {
  key: ByteEncoding;
  value: ByteEncoding;
}

export interface RecordWhere {
  file: string;
  topic?: string | undefined;
  partition?: number | undefined;
}

/** A record as JSON: the report's fields, with the payload's bytes as text. */
export function recordJson(rec: RecordReport, enc: Encodings): Record<string, unknown> {
  const { payload, ...rest } = rec;
  if (!payload) return { ...rest };
  return {
    ...rest,
    key: payload.key.toString(enc.key),
    value: payload.value?.toString(enc.value) ?? null,
    headers: payload.headers.map((h) => ({ name: h.name, value: h.value.toString(enc.value) })),
    ...(payload.decompressError !== undefined && { decompressError: payload.decompressError }),
  };
}

export function reportJson(report: InspectReport, enc: Encodings): unknown {
  return {
    ...report,
    partitions: report.partitions.map((p) => ({
      ...p,
      segments: p.segments.map((s) => ({
        ...s,
        ...(s.records && { records: s.records.map((r) => recordJson(r, enc)) }),
      })),
    })),
  };
}

function flagText(rec: RecordReport): string {
  return [rec.control ? 'C' : '-', rec.transactional ? 'T' : '-', rec.hasHeaders ? 'H' : '-'].join('');
}

export function recordColumns(level: InspectLevel, enc: Encodings): Column<RecordReport & RecordWhere>[] {
  const cols: Column<RecordReport & RecordWhere>[] = [
    { header: 'TOPIC', value: (r) => r.topic },
    { header: 'P', value: (r) => r.partition, align: 'right' },
    { header: 'OFFSET', value: (r) => r.offset, align: 'right' },
    { header: 'POS', value: (r) => r.position, align: 'right' },
    { header: 'SIZE', value: (r) => r.size, align: 'right' },
    { header: 'TIMESTAMP', value: (r) => r.timestampIso ?? String(r.timestamp) },
    { header: 'CODEC', value: (r) => r.codec },
    { header: 'CTH', value: flagText },
    { header: 'PID', value: (r) => r.producerId, align: 'right' },
    { header: 'EPOCH', value: (r) => r.epoch, align: 'right' },
    { header: 'KEY B', value: (r) => r.keySize, align: 'right' },
    { header: 'VALUE B', value: (r) => r.valueSize, align: 'right' },
    { header: 'CRC', value: (r) => (r.crcValid ? 'ok' : 'BAD') },
    { header: 'MARKER', value: (r) => r.controlMarker?.marker },
  ];
  if (level === 'payload') {
    cols.push(
      { header: 'KEY', value: (r) => r.payload?.key.toString(enc.key) },
      { header: 'VALUE', value: (r) => r.payload?.value?.toString(enc.value) ?? r.payload?.decompressError },
      {
        header: 'HEADERS',
        value: (r) => r.payload?.headers.map((h) => `${h.name}=${h.value.toString(enc.value)}`).join(' '),
      },
    );
  }
  return cols;
}

export function segmentColumns(): Column<SegmentReport & RecordWhere>[] {
  return [
    { header: 'TOPIC', value: (s) => s.topic },
    { header: 'P', value: (s) => s.partition, align: 'right' },
    { header: 'BACKEND', value: (s) => s.backend },
    { header: 'BASE', value: (s) => s.base, align: 'right' },
    { header: 'RECORDS', value: (s) => s.recordCount, align: 'right' },
    { header: 'BYTES', value: (s) => s.bytes, align: 'right' },
    { header: 'FIRST', value: (s) => s.firstOffset, align: 'right' },
    { header: 'LAST', value: (s) => s.lastOffset, align: 'right' },
    {
      header: 'CODECS',
      value: (s) =>
        Object.entries(s.codecs)
          .map(([c, n]) => `${c}:${n}`)
          .join(' '),
    },
    { header: 'FINDINGS', value: (s) => s.findingCount, align: 'right' },
  ];
}

export function findingColumns(): Column<Finding>[] {
  return [
    { header: 'FINDING', value: (f) => f.kind },
    { header: 'FILE', value: (f) => f.file },
    { header: 'POSITION', value: (f) => f.position, align: 'right' },
    { header: 'DETAIL', value: (f) => f.message },
  ];
}

/** The closing summary for stderr in human mode. */
export function summaryLine(summary: InspectSummary, chalk: ChalkInstance): string {
  const codecs = Object.entries(summary.codecs)
    .map(([c, n]) => `${c} ${formatCount(n)}`)
    .join(', ');
  const offsets =
    summary.firstOffset === undefined ? 'no records' : `offsets ${summary.firstOffset}..${summary.lastOffset}`;
  const findings =
    summary.findings === 0
      ? chalk.green('no findings')
      : chalk.red(`${formatCount(summary.findings)} finding${summary.findings === 1 ? '' : 's'}`);
  return (
    `${formatCount(summary.partitions)} partition(s), ${formatCount(summary.segments)} segment(s), ` +
    `${formatCount(summary.records)} record(s), ${formatBytes(summary.bytes)}; ${offsets}; ` +
    `codecs: ${codecs || 'none'}; transactional ${summary.transactional}, control ${summary.control}; ${findings}`
  );
}
