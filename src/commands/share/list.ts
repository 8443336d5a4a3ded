import { BaseCommand } from '../../cli/base-command.js';
import { renderExitCodeTable } from '../../cli/exit-codes.js';
import { connectionFlags } from '../../cli/flags.js';
import type { ShareGroupListing } from '../../client/index.js';

export default class ShareList extends BaseCommand {
  static override summary = 'List share groups (crater brokers only).';
  static override description = `One row per share group: its members and the share-partitions it has state for. --json prints [{"group", "members", "partitions"}]. Against a broker that is not crater it sends nothing and exits 2.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE'])}`;

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json'];
  static override flags = { ...connectionFlags() };

  async run(): Promise<ShareGroupListing[]> {
    const { flags } = await this.parse(ShareList);
    const { withMoonmqClient } = await import('../../cli/connect.js');
    const { shareGroupListColumns } = await import('../../cli/render/share.js');
    const groups = await withMoonmqClient(flags, 'share groups', (c) => c.shareGroups.list());
    if (!this.jsonEnabled()) this.out(this.table(shareGroupListColumns, groups));
    return groups;
  }
}
