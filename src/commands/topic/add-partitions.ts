import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { renderExitCodeTable } from '../../cli/exit-codes.js';
import { connectionFlags } from '../../cli/flags.js';

export default class TopicAddPartitions extends BaseCommand {
  static override summary = 'Grow a topic to a total number of partitions.';
  static override description = `--total is the new partition count, not the number to add; it must exceed the current count (the broker refuses otherwise). Keys may map to other partitions afterwards. --json prints {"topic": NAME, "partitions": TOTAL}.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE'])}`;

  static override examples = ['<%= config.bin %> <%= command.id %> orders --total 8'];
  static override args = { name: Args.string({ description: 'Topic name.', required: true, ignoreStdin: true }) };
  static override flags = {
    ...connectionFlags(),
    total: Flags.integer({ description: 'New total partition count.', required: true, min: 1 }),
  };

  async run(): Promise<{ topic: string; partitions: number }> {
    const { args, flags } = await this.parse(TopicAddPartitions);
    const { withClient } = await import('../../cli/connect.js');
    await withClient(flags, (c) => c.createPartitions(args.name, flags.total));
    this.out(`topic ${args.name} now has ${flags.total} partitions`);
    return { topic: args.name, partitions: flags.total };
  }
}
