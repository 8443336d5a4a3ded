import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { renderExitCodeTable } from '../../cli/exit-codes.js';
import { connectionFlags } from '../../cli/flags.js';

export default class GroupDelete extends BaseCommand {
  static override summary = "Delete a group's committed offsets and cursors.";
  static override description = `The broker refuses a group with live members. --json prints {"groupId": G, "deleted": true}.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE'])}`;

  static override examples = ['<%= config.bin %> <%= command.id %> billing'];
  static override args = { group: Args.string({ description: 'Group id.', required: true, ignoreStdin: true }) };
  static override flags = { ...connectionFlags() };

  async run(): Promise<{ groupId: string; deleted: true }> {
    const { args, flags } = await this.parse(GroupDelete);
    const { withClient } = await import('../../cli/connect.js');
    await withClient(flags, (c) => c.deleteGroup(args.group));
    this.out(`deleted group ${args.group}`);
    return { groupId: args.group, deleted: true };
  }
}
