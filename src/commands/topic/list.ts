import { BaseCommand } from '../../cli/base-command.js';
import { renderExitCodeTable } from '../../cli/exit-codes.js';
import { connectionFlags } from '../../cli/flags.js';

export default class TopicList extends BaseCommand {
  static override summary = 'List topics, one per line.';
  static override description = `Internal topics (__consumer_offsets, …) are listed when the broker reports them. --json prints {"topics": [NAME, …]}.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE'])}`;

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json'];
  static override flags = { ...connectionFlags() };

  async run(): Promise<{ topics: string[] }> {
    const { flags } = await this.parse(TopicList);
    const { withClient } = await import('../../cli/connect.js');
    const topics = await withClient(flags, (c) => c.listTopics());
    for (const t of topics) this.out(t);
    return { topics };
  }
}
