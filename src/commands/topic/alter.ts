import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { ExitCode, renderExitCodeTable } from '../../cli/exit-codes.js';
import { configValue, connectionFlags } from '../../cli/flags.js';

export default class TopicAlter extends BaseCommand {
  static override summary = 'Change topic configuration entries.';
  static override description = `Each --set key=value is sent in one ALTER_TOPIC_CONFIG, in the order given; the broker validates keys and values (alterable on crater: max_segment_size, retention in seconds, cleaner_interval, max_log_bytes). retention and cleaner_interval also take a duration with a unit (90s, 12h, 7d), sent as whole seconds. --json prints {"topic": NAME, "set": {key: value, …}} with the values as sent.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE'])}`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> orders --set retention=7d',
    '<%= config.bin %> <%= command.id %> orders --set retention=86400 --set max_segment_size=1048576',
  ];
  static override args = { name: Args.string({ description: 'Topic name.', required: true, ignoreStdin: true }) };
  static override flags = {
    ...connectionFlags(),
    set: Flags.string({ char: 's', description: 'key=value (repeatable).', multiple: true, required: true }),
  };

  async run(): Promise<{ topic: string; set: Record<string, string> }> {
    const { args, flags } = await this.parse(TopicAlter);
    const entries = flags.set.map((s): [string, string] => {
      const at = s.indexOf('=');
      if (at <= 0) this.fail(ExitCode.USAGE, `--set "${s}": expected key=value`);
      return [s.slice(0, at), configValue(s.slice(0, at), s.slice(at + 1))];
    });
    const { withClient } = await import('../../cli/connect.js');
    await withClient(flags, (c) => c.alterTopicConfig(args.name, entries));
    for (const [k, v] of entries) this.out(`${args.name}: ${k}=${v}`);
    return { topic: args.name, set: Object.fromEntries(entries) };
  }
}
