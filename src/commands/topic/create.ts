import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { renderExitCodeTable } from '../../cli/exit-codes.js';
import { connectionFlags } from '../../cli/flags.js';

export default class TopicCreate extends BaseCommand {
  static override summary = 'Create a topic.';
  static override description = `--json prints {"topic": NAME, "partitions": N, "created": true|false}. An existing topic is a broker error (exit 1), unless --if-not-exists: then it is left as it is (exit 0, "created": false, its own partition count), which makes scripts re-runnable.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE'])}`;

  static override examples = [
    '$ <%= config.bin %> <%= command.id %> orders --partitions 4',
    '$ <%= config.bin %> <%= command.id %> orders --partitions 4 --if-not-exists',
  ];
  static override args = { name: Args.string({ description: 'Topic name.', required: true, ignoreStdin: true }) };
  static override flags = {
    ...connectionFlags(),
    partitions: Flags.integer({ char: 'p', description: 'Number of partitions.', default: 1, min: 1 }),
    'if-not-exists': Flags.boolean({ description: 'Succeed without change when the topic already exists.' }),
  };

  async run(): Promise<{ topic: string; partitions: number; created: boolean }> {
    const { args, flags } = await this.parse(TopicCreate);
    const { withClient } = await import('../../cli/connect.js');
    const { createTopicIfMissing } = await import('../../cli/create-topic.js');
    const outcome = flags['if-not-exists']
      ? await withClient(flags, (c) => createTopicIfMissing(c, args.name, flags.partitions))
      : await withClient(flags, async (c) => {
          await c.createTopic(args.name, flags.partitions);
          return { topic: args.name, partitions: flags.partitions, created: true };
        });
    const plural = outcome.partitions === 1 ? '' : 's';
    this.out(
      outcome.created
        ? `created topic ${args.name} with ${outcome.partitions} partition${plural}`
        : `topic ${args.name} exists already (${outcome.partitions} partition${plural}); left as it is`,
    );
    return outcome;
  }
}
