/** Human rendering for produce, consume and fetch: delivery failures, the produce summary, record tables. */
import type { ChalkInstance } from 'chalk';
import { opName } from '../../protocol/opcodes.js';
import type { Delivery, SendStats } from '../producing.js';
import { type EnvelopeEncoding, type EnvelopeSource, encodeBytes } from './envelope.js';
import { formatCount, formatDuration } from './format.js';
import type { Column } from './table.js';

export function deliveryFailureLine(d: Delivery, chalk: ChalkInstance): string {
  return `${chalk.red('failed')} record ${d.index} (${d.source}:${d.line}): [${d.error?.code}] ${d.error?.message}`;
}

export function produceSummary(topic: string, stats: SendStats, elapsedMs: number, chalk: ChalkInstance): string {
  const failed = stats.failed.length;
  const head = `produced ${formatCount(stats.delivered)} of ${formatCount(stats.records)} records to ${topic}`;
  const tail = `in ${formatCount(stats.requests)} request${stats.requests === 1 ? '' : 's'}, ${formatDuration(elapsedMs)}`;
  if (failed === 0) return `${head} ${tail}`;
  const lines = stats.failed.map((d) => `${d.source}:${d.line}`);
  const shown =
    lines.length > 20 ? `${lines.slice(0, 20).join(', ')}, … (${lines.length - 20} more)` : lines.join(', ');
  return `${head} ${tail}; ${chalk.red(`${formatCount(failed)} failed`)}: ${shown}`;
}

/** The TTY-only progress line of `produce`: count so far and the rate since the start. */
export function produceProgress(topic: string, delivered: number, elapsedMs: number): string {
  return `producing to ${topic}: ${formatCount(delivered)} records, ${formatRate(delivered, elapsedMs)}`;
}

/** "1,234 records/s" over `elapsedMs`; "-" before anything can be measured. */
export function formatRate(count: number, elapsedMs: number): string {
  if (elapsedMs <= 0) return '- records/s';
  return `${formatCount(Math.round((count * 1000) / elapsedMs))} records/s`;
}

/** A byte field as one table cell: text when it is exact UTF-8 without control characters, else tagged base64/hex. */
export function bytesCell(bytes: Buffer | undefined, encoding: EnvelopeEncoding = 'auto'): string {
  if (bytes === undefined) return '';
  const field = encodeBytes(bytes, encoding);
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  if ('utf8' in field && !/[\u0000-\u001f\u007f]/.test(field.utf8)) return field.utf8;
  if ('hex' in field) return `hex:${field.hex}`;
  return `base64:${'base64' in field ? field.base64 : bytes.toString('base64')}`;
}

export function recordColumns(encoding: EnvelopeEncoding = 'auto'): Column<EnvelopeSource>[] {
  return [
    { header: 'PARTITION', value: (r) => r.partition, align: 'right' },
    { header: 'OFFSET', value: (r) => r.offset, align: 'right' },
    { header: 'TIMESTAMP', value: (r) => new Date(Number(r.timestamp)).toISOString() },
    { header: 'KEY', value: (r) => (r.key.length === 0 ? '' : bytesCell(r.key, encoding)) },
    { header: 'VALUE', value: (r) => bytesCell(r.value, encoding) },
    {
      header: 'HEADERS',
      value: (r) =>
        r.headers === undefined ? '' : r.headers.map((h) => `${h.name}=${bytesCell(h.value, encoding)}`).join(', '),
    },
  ];
}

/** `fetch --raw` frames as JSON-friendly rows: opcode, its name, correl and payload in hex. */
export function rawFrameRows(frames: ReadonlyArray<{ op: number; correl: Buffer; payload: Buffer }>) {
  return frames.map((f) => ({
    op: f.op,
    name: opName(f.op),
    correl: f.correl.toString('hex'),
    payload: f.payload.toString('hex'),
  }));
}
