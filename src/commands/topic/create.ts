import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { renderExitCodeTable } from '../../cli/exit-codes.js';
import { connectionFlags } from '../../cli/flags.js';

export default class TopicCreate extends BaseCommand {
  static override summary = 'Create a topic.';
  static override description = `--json prints {"topic": NAME, "partitions": N}. An existing topic is a broker error (exit 1).

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE'])}`;

  static override examples = ['<%= config.bin %> <%= command.id %> orders --partitions 4'];
  static override args = { name: Args.string({ description: 'Topic name.', required: true, ignoreStdin: true }) };
  static override flags = {
    ...connectionFlags(),
    partitions: Flags.integer({ char: 'p', description: 'Number of partitions.', default: 1, min: 1 }),
  };

  async run(): Promise<{ topic: string; partitions: number }> {
    const { args, flags } = await this.parse(TopicCreate);
    const { withClient } = await import('../../cli/connect.js');
    await withClient(flags, (c) => c.createTopic(args.name, flags.partitions));
    this.out(`created topic ${args.name} with ${flags.partitions} partition${flags.partitions === 1 ? '' : 's'}`);
    return { topic: args.name, partitions: flags.partitions };
  }
}
