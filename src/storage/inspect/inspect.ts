/**
 * `inspectPaths`: the read-only inspector behind `crater segments inspect`. Given segment files, partition, topic or
 * data directories, it returns a report of partitions, segments, records (at the record and payload levels) and
 * typed findings, each naming a file and a byte position. It opens every file with 'r' and writes nothing.
 */
import { type PartitionTarget, discover } from './discover.js';
import { inspectSegment } from './segment-inspector.js';
import type {
  Finding,
  InspectOptions,
  InspectReport,
  InspectSummary,
  PartitionReport,
  SegmentReport,
} from './types.js';

export * from './types.js';

/** Segment names must continue where the previous segment ends (a commit log may leave gaps: compaction). */
function checkContinuity(part: PartitionReport, findings: Finding[]): void {
  for (let i = 1; i < part.segments.length; i++) {
    const prev = part.segments[i - 1]!;
    const seg = part.segments[i]!;
    if (part.backend === 'segmented') {
      const expected = prev.base + BigInt(prev.bytes);
      if (seg.base !== expected) {
        findings.push({
          kind: 'segment-discontinuity',
          file: seg.file,
          position: 0,
          message: `base ${seg.base} does not continue the previous segment, which ends at byte offset ${expected}`,
        });
      }
    } else {
      const end = prev.base + BigInt(prev.recordCount);
      if (seg.base < end) {
        findings.push({
          kind: 'segment-discontinuity',
          file: seg.file,
          position: 0,
          message: `base ${seg.base} overlaps the previous segment, which holds offsets up to ${end - 1n}`,
        });
      }
    }
  }
}

function inspectPartition(target: PartitionTarget, options: InspectOptions, findings: Finding[]): PartitionReport {
  const part: PartitionReport = { dir: target.dir, backend: target.backend, segments: [] };
  if (target.topic !== undefined) part.topic = target.topic;
  if (target.partition !== undefined) part.partition = target.partition;
  for (const files of target.segments) {
    const isLast = files.base === target.lastBase;
    const ctx = { backend: target.backend, files, isLast, topic: target.topic, partition: target.partition, options };
    const seg = inspectSegment(ctx, findings);
    if (seg) part.segments.push(seg);
  }
  if (target.whole) {
    const before = findings.length;
    checkContinuity(part, findings);
    for (const f of findings.slice(before)) {
      const seg = part.segments.find((s) => s.file === f.file);
      if (seg) seg.findingCount++;
    }
  }
  return part;
}

function summarize(partitions: readonly PartitionReport[], findings: readonly Finding[]): InspectSummary {
  const summary: InspectSummary = {
    partitions: partitions.length,
    segments: 0,
    records: 0,
    bytes: 0,
    codecs: {},
    transactional: 0,
    control: 0,
    findings: findings.length,
    findingsByKind: {},
  };
  const segments: SegmentReport[] = partitions.flatMap((p) => p.segments);
  for (const seg of segments) {
    summary.segments++;
    summary.records += seg.recordCount;
    summary.bytes += seg.bytes;
    summary.transactional += seg.transactional;
    summary.control += seg.control;
    for (const [codec, n] of Object.entries(seg.codecs)) summary.codecs[codec] = (summary.codecs[codec] ?? 0) + n;
    if (seg.firstOffset !== undefined && (summary.firstOffset === undefined || seg.firstOffset < summary.firstOffset)) {
      summary.firstOffset = seg.firstOffset;
    }
    if (seg.lastOffset !== undefined && (summary.lastOffset === undefined || seg.lastOffset > summary.lastOffset)) {
      summary.lastOffset = seg.lastOffset;
    }
  }
  for (const f of findings) summary.findingsByKind[f.kind] = (summary.findingsByKind[f.kind] ?? 0) + 1;
  return summary;
}

export function inspectPaths(paths: readonly string[], options: InspectOptions = {}): InspectReport {
  const findings: Finding[] = [];
  const partitions: PartitionReport[] = [];
  for (const p of paths) {
    for (const target of discover(p, findings)) partitions.push(inspectPartition(target, options, findings));
  }
  return {
    level: options.level ?? 'record',
    paths: [...paths],
    partitions,
    findings,
    summary: summarize(partitions, findings),
  };
}
