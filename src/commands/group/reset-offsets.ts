import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { renderExitCodeTable } from '../../cli/exit-codes.js';
import { connectionFlags } from '../../cli/flags.js';
import type { ResetReport } from '../../cli/reset-offsets.js';

export default class GroupResetOffsets extends BaseCommand {
  static override summary = "Move a group's committed offsets on a topic (like kafka-consumer-groups --reset-offsets).";

  static override description = `--to takes the positions of \`consume --from\`: earliest (or beginning), latest (or end), OFFSET, -N (the last N records of each partition) or @TIMESTAMP_MS (the first record stamped at or after it). --partition N (repeatable; from 1 on MoonMQ, from 0 on Kafka) limits the reset to those partitions. --dry-run shows the current and new offsets and changes nothing; --execute commits the new ones. Exactly one of them is required.

Refused (exit 1) while the group has live members: a member keeps its own cursor and would overwrite the reset. Offsets are opaque cursors (byte positions on segmented topics); on Kafka (--broker kafka://...) they are record counts and the reset is Kafka's OffsetCommit for the empty group.

--json prints {"group", "topic", "executed", "partitions": [{"partition", "current", "target"}]}; current is null when the group had no committed offset there.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE'])}`;

  static override examples = [
    '$ <%= config.bin %> <%= command.id %> billing orders --to earliest --dry-run',
    '$ <%= config.bin %> <%= command.id %> billing orders --to @1767225600000 --partition 2 --execute',
    '$ <%= config.bin %> <%= command.id %> billing orders --to -100 --execute --json',
  ];

  static override args = {
    group: Args.string({ description: 'Group id.', required: true, ignoreStdin: true }),
    topic: Args.string({ description: 'Topic whose offsets move.', required: true, ignoreStdin: true }),
  };

  static override flags = {
    ...connectionFlags(),
    to: Flags.string({
      description: 'New position: earliest, latest, OFFSET, -N or @TIMESTAMP_MS.',
      required: true,
      helpValue: 'POSITION',
    }),
    partition: Flags.integer({
      char: 'p',
      description: 'Only this partition (from 1 on MoonMQ, from 0 on Kafka; repeatable).',
      multiple: true,
      min: 0,
    }),
    'dry-run': Flags.boolean({
      description: 'Show the new offsets; change nothing.',
      exactlyOne: ['dry-run', 'execute'],
    }),
    execute: Flags.boolean({ description: 'Commit the new offsets.', exactlyOne: ['dry-run', 'execute'] }),
  };

  async run(): Promise<ResetReport> {
    const { args, flags } = await this.parse(GroupResetOffsets);
    const { openClient, withClient } = await import('../../cli/connect.js');
    const { parsePosition } = await import('../../cli/positions.js');
    const { resetOffsets } = await import('../../cli/reset-offsets.js');
    const { resetColumns } = await import('../../cli/render/admin.js');
    const position = parsePosition(flags.to);
    const report = await withClient(flags, (client) =>
      resetOffsets(client, () => openClient(flags), {
        group: args.group,
        topic: args.topic,
        position,
        partitions: flags.partition,
        execute: flags.execute === true,
        timeoutMs: flags.timeout,
      }),
    );
    this.out(this.table(resetColumns, report.partitions));
    this.diag(
      report.executed
        ? `reset ${report.partitions.length} partition(s) of ${args.topic} for group ${args.group}`
        : 'dry run: nothing changed (use --execute to commit)',
    );
    return report;
  }
}
