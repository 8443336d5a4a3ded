import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { byteEncodingFlags, findingsExitCodes, jsonlFlag, resolveEncodings, verifyFlag } from '../../cli/disk-flags.js';
import { ExitCode } from '../../cli/exit-codes.js';
import { stringifyJson } from '../../cli/render/json.js';
import {
  findingColumns,
  recordColumns,
  recordJson,
  reportJson,
  segmentColumns,
  summaryLine,
} from '../../cli/render/segments.js';
import { type InspectLevel, inspectLevels } from '../../cli/render/segments.js';

export default class SegmentsInspect extends BaseCommand {
  static override summary = 'Inspect segment files, partitions, topics or a whole data dir (read-only).';

  static override description = `Reads .log, .timeindex and .index files of both backends (segmented and commitlog) and reports every segment, record and finding: CRC mismatches, impossible lengths, torn or trailing bytes, time-index entries off a record start or going backwards, truncated time indexes, segment names that do not continue, dense-index mismatches, empty segments, paths that are not segments or do not exist.

Files are opened read-only and never recovered, truncated or written, so it is safe on a live or damaged data dir.

PATH may be a segment file, a partition-<id> directory, a topic directory or a data dir; give as many as you like.

Output: a table on a terminal, aligned plain text in a pipe, and a closing summary on stderr. --json prints one JSON document; --jsonl prints one line per record (per segment at --level segment), one per finding, then a summary line. In JSON, offsets, producer ids and timestamps are numbers when they are safe integers (up to 2^53-1) and decimal strings otherwise; keys, values and header values are bare strings in --encoding (utf8, hex or base64; default utf8), or --key-encoding / --value-encoding where given. consume --json has the same --encoding flag, but tags each byte field with its encoding, so it offers auto (utf8 where exact, else base64) instead of a lossy utf8.

${findingsExitCodes()}`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> ./data_server',
    '<%= config.bin %> <%= command.id %> ./data_server/orders/partition-1 --level payload --encoding hex',
    '<%= config.bin %> <%= command.id %> ./data_server/orders/partition-1 --level payload --encoding hex --key-encoding utf8',
    '<%= config.bin %> <%= command.id %> ./data_server --level segment --verify --json',
  ];

  static override strict = false;

  static override args = {
    path: Args.string({ description: 'Segment file, partition, topic or data directory.', required: true }),
  };

  static override flags = {
    level: Flags.string({ description: 'How much to report.', options: [...inspectLevels], default: 'record' }),
    ...byteEncodingFlags('payload level'),
    jsonl: jsonlFlag('One JSON line per record, then one per finding and a summary line.'),
    verify: verifyFlag(),
  };

  async run(): Promise<unknown> {
    const { argv, flags } = await this.parse(SegmentsInspect);
    const { inspectPaths, requireExistingPaths } = await import('../../cli/disk-readers.js');
    const paths = argv as string[];
    requireExistingPaths(paths);
    const level = flags.level as InspectLevel;
    const enc = resolveEncodings(flags);
    const line = (value: unknown) => this.out(stringifyJson(value));

    if (flags.jsonl) {
      const report = inspectPaths(paths, {
        level,
        ...(level !== 'segment' && {
          onRecord: (rec, where) => line({ type: 'record', ...where, ...recordJson(rec, enc) }),
        }),
      });
      if (level === 'segment') {
        for (const p of report.partitions) {
          for (const s of p.segments) line({ type: 'segment', topic: p.topic, partition: p.partition, ...s });
        }
      }
      for (const f of report.findings) line({ type: 'finding', ...f });
      line({ type: 'summary', ...report.summary });
      if (flags.verify && report.findings.length > 0) this.setExitCode(ExitCode.CORRUPT);
      return undefined;
    }

    const report = inspectPaths(paths, { level });
    if (flags.verify && report.findings.length > 0) this.setExitCode(ExitCode.CORRUPT);
    if (this.jsonEnabled()) return reportJson(report, enc);

    const where = (p: (typeof report.partitions)[number]) => ({ topic: p.topic, partition: p.partition });
    if (level === 'segment') {
      const rows = report.partitions.flatMap((p) => p.segments.map((s) => ({ ...s, ...where(p), file: s.file })));
      this.out(this.table(segmentColumns(), rows));
    } else {
      const rows = report.partitions.flatMap((p) =>
        p.segments.flatMap((s) => (s.records ?? []).map((r) => ({ ...r, ...where(p), file: s.file }))),
      );
      this.out(this.table(recordColumns(level, enc), rows));
    }
    if (report.findings.length > 0) this.out(`\n${this.table(findingColumns(), report.findings)}`);
    this.diag(summaryLine(report.summary, this.stderrChalk));
    return undefined;
  }
}
