import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { renderExitCodeTable } from '../../cli/exit-codes.js';
import { connectionFlags } from '../../cli/flags.js';
import type { TopicJson } from '../../cli/render/admin.js';

export default class TopicDescribe extends BaseCommand {
  static override summary = 'Show a topic: partition count and configuration.';
  static override description = `--json prints {"name": NAME, "partitions": N, "config": {key: value, …}}.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE'])}`;

  static override examples = ['<%= config.bin %> <%= command.id %> orders'];
  static override args = { name: Args.string({ description: 'Topic name.', required: true, ignoreStdin: true }) };
  static override flags = { ...connectionFlags() };

  async run(): Promise<TopicJson> {
    const { args, flags } = await this.parse(TopicDescribe);
    const { withClient } = await import('../../cli/connect.js');
    const { topicJson } = await import('../../cli/render/admin.js');
    const { renderPairs } = await import('../../cli/render/table.js');
    const topic = topicJson(await withClient(flags, (c) => c.describeTopic(args.name)));
    this.out(
      renderPairs(
        [['name', topic.name], ['partitions', topic.partitions], ...Object.entries(topic.config)],
        this.chalk,
      ),
    );
    return topic;
  }
}
