import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { renderExitCodeTable } from '../../cli/exit-codes.js';
import { connectionFlags } from '../../cli/flags.js';
import type { GroupDescription } from '../../client/index.js';

export default class GroupDescribe extends BaseCommand {
  static override summary = 'Show a group: state, members and their partitions, committed offsets.';
  static override description = `--json prints {"groupId", "state", "members": [{"memberId", "topics": [{"topic", "partitions": [..]}]}], "offsets": [{"topic", "partition", "offset"}]}; an offset is the next record the group reads. An unknown group is a broker error (exit 1).

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE'])}`;

  static override examples = ['<%= config.bin %> <%= command.id %> billing'];
  static override args = { group: Args.string({ description: 'Group id.', required: true, ignoreStdin: true }) };
  static override flags = { ...connectionFlags() };

  async run(): Promise<GroupDescription> {
    const { args, flags } = await this.parse(GroupDescribe);
    const { withClient } = await import('../../cli/connect.js');
    const { committedColumns, memberColumns, memberRows } = await import('../../cli/render/admin.js');
    const { renderPairs } = await import('../../cli/render/table.js');
    const group = await withClient(flags, (c) => c.describeGroup(args.group));
    this.out(
      renderPairs(
        [
          ['group', group.groupId],
          ['state', group.state],
          ['members', group.members.length],
        ],
        this.chalk,
      ),
    );
    if (group.members.length > 0) this.out(`\n${this.table(memberColumns, memberRows(group))}`);
    if (group.offsets.length > 0) this.out(`\n${this.table(committedColumns, group.offsets)}`);
    return group;
  }
}
