/**
 * Inspects one segment: scans its .log with bounded reads (never through SegmentedLog or CommitLog, which would
 * recover and truncate), reports each record, and checks the segment's index file against what it finds. Files are
 * opened with 'r' only.
 */
import fs from 'node:fs';
import { DEFAULT_SCAN_CHUNK, type ScanItem, scanRecords } from '../record-scanner.js';
import type { SegmentFiles } from './discover.js';
import { DenseIndexCheck, TimeIndexCheck } from './index-check.js';
import { reportDamagedRecord, reportValidRecord } from './record-view.js';
import type { Finding, FindingKind, InspectOptions, RecordReport, SegmentReport, StorageBackend } from './types.js';

/** No segment can be longer than a u32 position reaches, so a longer claimed record is not a torn write. */
const MAX_SEGMENT_BYTES = 0xffffffffn;

export interface SegmentContext {
  backend: StorageBackend;
  files: SegmentFiles;
  /** The active segment, the only one allowed to be empty. */
  isLast: boolean;
  topic?: string;
  partition?: number;
  options: InspectOptions;
}

type Problem = Extract<ScanItem, { ok: false }>;

function findingFor(item: Problem): { kind: FindingKind; message: string } {
  switch (item.problem) {
    case 'header-crc':
    case 'payload-crc':
      return { kind: 'crc-mismatch', message: item.detail };
    case 'short-length-prefix':
      return { kind: 'trailing-bytes', message: item.detail };
    case 'short-body':
      if (item.bytes === undefined && (item.claimedLength ?? 0n) > MAX_SEGMENT_BYTES) {
        return { kind: 'impossible-length', message: `${item.detail}; no segment can hold that many bytes` };
      }
      return { kind: 'torn-record', message: item.detail };
    case 'impossible-length':
      return item.bytes === undefined
        ? { kind: 'impossible-length', message: item.detail }
        : { kind: 'bad-record', message: item.detail };
    default:
      return { kind: 'bad-record', message: item.detail };
  }
}

export function inspectSegment(ctx: SegmentContext, findings: Finding[]): SegmentReport | undefined {
  const { files, backend, options } = ctx;
  if (!files.log) {
    const orphan = files.index ?? files.timeIndex ?? '';
    findings.push({ kind: 'missing-path', file: orphan, position: 0, message: 'index file without its .log segment' });
    return undefined;
  }
  const before = findings.length;
  const report = emptyReport(files.log, ctx);
  const keep = (options.level ?? 'record') !== 'segment' && options.onRecord === undefined;
  const records: RecordReport[] = [];
  const timeIndex =
    backend === 'segmented' && files.timeIndex ? new TimeIndexCheck(files.timeIndex, findings) : undefined;
  const dense = backend === 'commitlog' && files.index ? new DenseIndexCheck(files.index, findings) : undefined;
  const fd = fs.openSync(files.log, 'r');
  try {
    const n = scanSegment(fd, ctx, report, findings, (rec, position, index) => {
      timeIndex?.visit(position, rec.timestamp);
      dense?.visit(index, position);
      if (keep) records.push(rec);
    });
    timeIndex?.finish();
    dense?.finish(n);
  } finally {
    fs.closeSync(fd);
    dense?.close();
  }
  if (timeIndex) report.timeIndex = timeIndex.report;
  if (dense) report.index = dense.report;
  if (keep) report.records = records;
  report.findingCount = findings.length - before;
  return report;
}

function emptyReport(file: string, ctx: SegmentContext): SegmentReport {
  return {
    file,
    backend: ctx.backend,
    base: ctx.files.base,
    bytes: 0,
    validBytes: 0,
    recordCount: 0,
    codecs: {},
    transactional: 0,
    control: 0,
    findingCount: 0,
  };
}

/**
 * Walks the segment's records into `report` (counts, offsets, codecs, findings), handing each record to `visit`
 * and to `options.onRecord`; stops at the first damage it cannot step over. Returns the records seen.
 */
function scanSegment(
  fd: number,
  ctx: SegmentContext,
  report: SegmentReport,
  findings: Finding[],
  visit: (rec: RecordReport, position: number, index: number) => void,
): number {
  const { files, backend, options } = ctx;
  const level = options.level ?? 'record';
  const file = report.file;
  const size = fs.fstatSync(fd).size;
  report.bytes = size;
  report.validBytes = size;
  if (size === 0 && !ctx.isLast) {
    findings.push({ kind: 'empty-segment', file, position: 0, message: 'a closed segment with no records' });
  }
  let n = 0;
  for (const item of scanRecords(fd, size, 0, options.chunkBytes ?? DEFAULT_SCAN_CHUNK)) {
    const offset = backend === 'segmented' ? files.base + BigInt(item.position) : files.base + BigInt(n);
    let rec: RecordReport;
    if (item.ok) {
      rec = reportValidRecord(offset, item.position, item.record, level);
    } else {
      findings.push({ file, position: item.position, ...findingFor(item) });
      if (item.bytes === undefined) {
        report.validBytes = item.position;
        break;
      }
      rec = reportDamagedRecord(offset, item.position, item.bytes);
    }
    visit(rec, item.position, n);
    n++;
    report.recordCount = n;
    report.firstOffset ??= offset;
    report.lastOffset = offset;
    report.codecs[rec.codec] = (report.codecs[rec.codec] ?? 0) + 1;
    if (rec.transactional) report.transactional++;
    if (rec.control) report.control++;
    if (options.onRecord && level !== 'segment')
      options.onRecord(rec, { file, topic: ctx.topic, partition: ctx.partition });
  }
  return n;
}
