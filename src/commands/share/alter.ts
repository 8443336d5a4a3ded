import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { ExitCode, renderExitCodeTable } from '../../cli/exit-codes.js';
import { connectionFlags } from '../../cli/flags.js';

export default class ShareAlter extends BaseCommand {
  static override summary = 'Set share group configuration (crater brokers only).';
  static override description = `Each --set key=value goes in one SHARE_ALTER; the broker validates them all and applies none on a bad one (exit 1). Keys: record.lock.duration.ms (30000), delivery.count.limit (5), partition.max.record.locks (2000), auto.offset.reset latest|earliest (latest), isolation.level read_uncommitted|read_committed, dlq.enabled true|false (false). A group that does not exist yet is created with these settings. --json prints {"group", "set": {key: value, …}}.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE'])}`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> workers --set record.lock.duration.ms=60000 --set delivery.count.limit=3',
  ];
  static override args = { group: Args.string({ description: 'Share group.', required: true, ignoreStdin: true }) };
  static override flags = {
    ...connectionFlags(),
    set: Flags.string({ char: 's', description: 'key=value (repeatable).', multiple: true, required: true }),
  };

  async run(): Promise<{ group: string; set: Record<string, string> }> {
    const { args, flags } = await this.parse(ShareAlter);
    const entries = flags.set.map((s): [string, string] => {
      const at = s.indexOf('=');
      if (at <= 0) this.fail(ExitCode.USAGE, `--set "${s}": expected key=value`);
      return [s.slice(0, at), s.slice(at + 1)];
    });
    const { withMoonmqClient } = await import('../../cli/connect.js');
    await withMoonmqClient(flags, 'share groups', (c) => c.shareGroups.alter(args.group, Object.fromEntries(entries)));
    for (const [k, v] of entries) this.out(`${args.group}: ${k}=${v}`);
    return { group: args.group, set: Object.fromEntries(entries) };
  }
}
