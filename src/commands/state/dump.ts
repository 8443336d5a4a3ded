import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { findingsExitCodes, verifyFlag } from '../../cli/disk-flags.js';
import { ExitCode } from '../../cli/exit-codes.js';
import { stateEntryColumns, stateFindingColumns, stateSummaryLine } from '../../cli/render/state.js';

export default class StateDump extends BaseCommand {
  static override summary =
    'Decode __producer_state: producer identities, sequence memos, the pid allocator (read-only).';

  static override description = `Reads the __producer_state commit log of a data dir (or the topic dir, a partition dir or segment files) and decodes every record: identities (name → pid, epoch), sequence memos v1, v2 and v3 (with every ack of the memoized batch), the allocator watermark and tombstones.

By default it shows the compacted view a broker replays (last record per key wins, tombstones delete); --history shows every record in log order. --producer (a name or a pid) and --topic filter the rows.

Findings are always reported: damaged or truncated records, unknown key tags, keys or values that fit no layout, v3 tails whose count runs past the bytes, batch memos that disagree with themselves, memos from an epoch ahead of their identity. --against DATA_DIR also checks every memo's acks against the records actually present in that data dir's topics and reports acks that point at nothing.

Files are opened read-only, so it is safe on a live broker's data dir. In JSON, pids, offsets and timestamps are numbers when they are safe integers and decimal strings otherwise.

${findingsExitCodes()}`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> ./data',
    '<%= config.bin %> <%= command.id %> ./data --history --producer app',
    '<%= config.bin %> <%= command.id %> ./data --verify --against ./data --json',
  ];

  static override strict = false;

  static override args = {
    path: Args.string({
      description: 'Data dir, __producer_state dir, partition dir or segment file.',
      required: true,
    }),
  };

  static override flags = {
    history: Flags.boolean({ description: 'Every record in log order instead of the compacted last-wins view.' }),
    producer: Flags.string({ description: 'Only this producer: a name or a pid.' }),
    topic: Flags.string({ description: 'Only memos for this topic.' }),
    against: Flags.string({ description: 'Check every memo ack against the records in this data dir.' }),
    verify: verifyFlag(),
  };

  async run(): Promise<unknown> {
    const { argv, flags } = await this.parse(StateDump);
    const { dumpProducerState, requireExistingPaths } = await import('../../cli/disk-readers.js');
    requireExistingPaths(argv as string[]);
    if (flags.against !== undefined) requireExistingPaths([flags.against], '--against');
    const report = dumpProducerState(argv as string[], {
      history: flags.history,
      producer: flags.producer,
      topic: flags.topic,
      against: flags.against,
    });
    if (flags.verify && report.findings.length > 0) this.setExitCode(ExitCode.CORRUPT);
    if (this.jsonEnabled()) return report;
    this.out(this.table(stateEntryColumns(), report.entries));
    if (report.findings.length > 0) this.out(`\n${this.table(stateFindingColumns(), report.findings)}`);
    this.diag(stateSummaryLine(report.summary, report.view, this.stderrChalk));
    return undefined;
  }
}
