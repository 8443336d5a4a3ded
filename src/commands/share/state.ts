import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { findingsExitCodes, verifyFlag } from '../../cli/disk-flags.js';
import { ExitCode } from '../../cli/exit-codes.js';

export default class ShareState extends BaseCommand {
  static override summary =
    'Decode __share_group_state offline: share-partition windows, delivery counts, group configs (read-only).';
  static override description = `Reads the __share_group_state commit log of a data dir (or the topic dir, a partition dir or segment files) and decodes every record: each share-partition's snapshot (SPSO, SPEO, every in-flight record with its state and delivery count), each group's config overrides, and tombstones. A record written as acquired comes back available when a broker replays it.

By default it shows the compacted view a broker replays (last record per key wins); --history shows every record in log order; --group filters. Findings: damaged or truncated records, keys or values that fit no layout, a path without __share_group_state. Files are opened read-only, so it is safe on a live broker's data dir. --json prints {"view", "entries": [...], "findings": [...], "summary"}.

${findingsExitCodes()}`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> ./data',
    '<%= config.bin %> <%= command.id %> ./data --group workers --history --json',
    '<%= config.bin %> <%= command.id %> ./data --verify',
  ];
  static override strict = false;
  static override args = {
    path: Args.string({
      description: 'Data dir, __share_group_state dir, partition dir or segment file.',
      required: true,
    }),
  };
  static override flags = {
    history: Flags.boolean({ description: 'Every record in log order instead of the compacted last-wins view.' }),
    group: Flags.string({ description: 'Only this share group.' }),
    verify: verifyFlag(),
  };

  async run(): Promise<unknown> {
    const { argv, flags } = await this.parse(ShareState);
    const { dumpShareState } = await import('../../cli/disk-readers.js');
    const { shareStateColumns } = await import('../../cli/render/share.js');
    const report = dumpShareState(argv as string[], { history: flags.history, group: flags.group });
    if (flags.verify && report.findings.length > 0) this.setExitCode(ExitCode.CORRUPT);
    if (this.jsonEnabled()) return report;
    this.out(this.table(shareStateColumns, report.entries));
    for (const f of report.findings)
      this.diag(`${f.kind}: ${f.file}${f.offset === undefined ? '' : ` offset ${f.offset}`}: ${f.message}`);
    const s = report.summary;
    this.diag(
      `${s.records} records, ${s.groups} groups, ${s.sharePartitions} share-partitions (${report.view}), ${s.findings} findings`,
    );
    return undefined;
  }
}
