import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { renderExitCodeTable } from '../cli/exit-codes.js';
import { connectionFlags } from '../cli/flags.js';
import type { PartitionOffsetsJson } from '../cli/render/admin.js';

export default class Offsets extends BaseCommand {
  static override summary = "Per-partition offsets of a topic, and each group's lag.";
  static override description = `Per partition: earliest, latest (log end), high watermark and last stable offset (LSO), from LIST_OFFSETS; with --group (repeatable), that group's committed offset (DESCRIBE_GROUP) and lag = latest − max(committed, earliest). Offsets are the backend's cursors: byte positions on segmented topics (so lag is in bytes), record counts on commitlog topics and on Kafka (--broker kafka://..., partitions from 0). A group that has committed nothing on a partition shows committed null and would start at the beginning.

--json prints {"topic", "partitions": [{"partition", "earliest", "latest", "highWatermark", "lso", "groups": [{"group", "committed", "lag"}]}]}.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE'])}`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> orders',
    '<%= config.bin %> <%= command.id %> orders --group billing --group audit --json',
  ];
  static override args = { topic: Args.string({ description: 'Topic name.', required: true, ignoreStdin: true }) };
  static override flags = {
    ...connectionFlags(),
    group: Flags.string({
      char: 'g',
      description: "Show this group's committed offset and lag (repeatable).",
      multiple: true,
    }),
  };

  async run(): Promise<{ topic: string; partitions: PartitionOffsetsJson[] }> {
    const { args, flags } = await this.parse(Offsets);
    const { withClient } = await import('../cli/connect.js');
    const { offsetColumns, offsetUnit, offsetsJson } = await import('../cli/render/admin.js');
    const groupIds = flags.group ?? [];
    const { partitions, unit } = await withClient(flags, async (c) => {
      const offsets = await c.listOffsets(args.topic);
      const groups = [];
      for (const id of groupIds) groups.push(await c.describeGroup(id));
      return {
        partitions: offsetsJson(offsets, groups, args.topic),
        // Kafka's offsets count records (the unit kafka-consumer-groups' LAG is in).
        unit: c.kind === 'kafka' ? ('records' as const) : offsetUnit(await c.describeTopic(args.topic)),
      };
    });
    this.out(this.table(offsetColumns(groupIds, unit), partitions));
    return { topic: args.topic, partitions };
  }
}
