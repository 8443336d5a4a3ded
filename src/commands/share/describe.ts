import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { renderExitCodeTable } from '../../cli/exit-codes.js';
import { connectionFlags } from '../../cli/flags.js';
import type { ShareGroupDescription } from '../../client/index.js';

export default class ShareDescribe extends BaseCommand {
  static override summary = 'Show a share group: config, members, and per partition its window (crater brokers only).';
  static override description = `Per share-partition: SPSO and SPEO (the in-flight window), END (the LEO, or the LSO for a read_committed group), LAG = END − SPSO in offset units, in-flight records by state (available, acquired, acknowledged, archived), the age of the oldest lock held, and the delivery-count histogram (count:records).

--json prints {"group", "state" (0 empty, 1 stable), "config": [{"key", "value"}], "members": [{"memberId", "address", "acquired", "lastSeenMs"}], "partitions": [{"topic", "partition", "spso", "speo", "endOffset", "available", "acquired", "acknowledged", "archived", "oldestLockAgeMs", "deliveryCounts": [{"deliveryCount", "records"}]}]}. An unknown group is a broker error (exit 1).

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE'])}`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> workers',
    '<%= config.bin %> <%= command.id %> workers --json',
  ];
  static override args = { group: Args.string({ description: 'Share group.', required: true, ignoreStdin: true }) };
  static override flags = { ...connectionFlags() };

  async run(): Promise<ShareGroupDescription> {
    const { args, flags } = await this.parse(ShareDescribe);
    const { withMoonmqClient } = await import('../../cli/connect.js');
    const { sharePartitionColumns, shareMemberColumns } = await import('../../cli/render/share.js');
    const { renderPairs } = await import('../../cli/render/table.js');
    const d = await withMoonmqClient(flags, 'share groups', (c) => c.shareGroups.describe(args.group));
    if (this.jsonEnabled()) return d;
    const pairs: Array<[string, string | number]> = [
      ['group', d.group],
      ['state', d.state === 1 ? 'stable' : 'empty'],
      ['members', d.members.length],
    ];
    for (const c of d.config) pairs.push([c.key, c.value]);
    this.out(renderPairs(pairs, this.chalk));
    if (d.members.length > 0) this.out(`\n${this.table(shareMemberColumns, d.members)}`);
    if (d.partitions.length > 0) this.out(`\n${this.table(sharePartitionColumns, d.partitions)}`);
    return d;
  }
}
