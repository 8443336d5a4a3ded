import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { ExitCode, renderExitCodeTable } from '../../cli/exit-codes.js';
import { connectionFlags } from '../../cli/flags.js';

export default class ShareReset extends BaseCommand {
  static override summary = 'Move a share group to the earliest, the latest or a given offset (crater brokers only).';
  static override description = `Moves the SPSO of every share-partition the group has state for (or, with --topic, every partition of that topic) and drops their in-flight records. The broker refuses while the group has members (ERR_GROUP_NOT_EMPTY, exit 1). An OFFSET must be a record start (or the end) of each partition. --json prints {"group", "to", "topic"}.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE'])}`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> workers --to earliest',
    '<%= config.bin %> <%= command.id %> workers --to 1200 --topic jobs',
  ];
  static override args = { group: Args.string({ description: 'Share group.', required: true, ignoreStdin: true }) };
  static override flags = {
    ...connectionFlags(),
    to: Flags.string({ description: 'earliest, latest or an offset.', required: true }),
    topic: Flags.string({ description: 'Only this topic (all its partitions).' }),
  };

  async run(): Promise<{ group: string; to: string; topic: string | null }> {
    const { args, flags } = await this.parse(ShareReset);
    const to =
      flags.to === 'earliest' || flags.to === 'latest'
        ? flags.to
        : /^\d+$/.test(flags.to)
          ? BigInt(flags.to)
          : undefined;
    if (to === undefined) this.fail(ExitCode.USAGE, `--to "${flags.to}": expected earliest, latest or an offset`);
    const { withMoonmqClient } = await import('../../cli/connect.js');
    await withMoonmqClient(flags, 'share groups', (c) => c.shareGroups.reset(args.group, to, flags.topic ?? ''));
    this.out(`${args.group}: reset to ${flags.to}${flags.topic ? ` on ${flags.topic}` : ''}`);
    return { group: args.group, to: flags.to, topic: flags.topic ?? null };
  }
}
