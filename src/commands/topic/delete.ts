import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { renderExitCodeTable } from '../../cli/exit-codes.js';
import { connectionFlags } from '../../cli/flags.js';

export default class TopicDelete extends BaseCommand {
  static override summary = 'Delete a topic and its data.';
  static override description = `The broker removes the topic's partitions and its committed group offsets. --json prints {"topic": NAME, "deleted": true}.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE'])}`;

  static override examples = ['<%= config.bin %> <%= command.id %> orders'];
  static override args = { name: Args.string({ description: 'Topic name.', required: true, ignoreStdin: true }) };
  static override flags = { ...connectionFlags() };

  async run(): Promise<{ topic: string; deleted: true }> {
    const { args, flags } = await this.parse(TopicDelete);
    const { withClient } = await import('../../cli/connect.js');
    await withClient(flags, (c) => c.deleteTopic(args.name));
    this.out(`deleted topic ${args.name}`);
    return { topic: args.name, deleted: true };
  }
}
