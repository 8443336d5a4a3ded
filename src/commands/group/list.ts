import { BaseCommand } from '../../cli/base-command.js';
import { renderExitCodeTable } from '../../cli/exit-codes.js';
import { connectionFlags } from '../../cli/flags.js';
import type { GroupListing } from '../../client/index.js';

export default class GroupList extends BaseCommand {
  static override summary = 'List consumer groups with their state and member count.';
  static override description = `Groups known to the coordinator (joined members) or with committed offsets. --json prints {"groups": [{"groupId", "state", "memberCount"}, …]}.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE'])}`;

  static override examples = ['<%= config.bin %> <%= command.id %>'];
  static override flags = { ...connectionFlags() };

  async run(): Promise<{ groups: GroupListing[] }> {
    const { flags } = await this.parse(GroupList);
    const { withClient } = await import('../../cli/connect.js');
    const { groupListColumns } = await import('../../cli/render/admin.js');
    const groups = await withClient(flags, (c) => c.listGroups());
    this.out(this.table(groupListColumns, groups));
    return { groups };
  }
}
