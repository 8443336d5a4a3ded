/**
 * LIST_GROUPS (0x1C)   empty
 * GROUP_LIST (0x8F)    u32 n (≤ 4096) · n × (str group_id · str state · u32 member_count)
 */
import { Limits } from '../limits.js';
import { defineMessage, emptyMessage } from '../message.js';
import { Op } from '../opcodes.js';
import { inEntry } from './field-path.js';

export interface GroupListing {
  groupId: string;
  /** empty · preparing_rebalance · completing_rebalance · stable · dead */
  state: string;
  memberCount: number;
}

export interface GroupList {
  groups: GroupListing[];
}

export const ListGroupsRequest = emptyMessage(Op.LIST_GROUPS, 'LIST_GROUPS');

export const GroupListReply = defineMessage<GroupList>({
  op: Op.GROUP_LIST,
  name: 'GROUP_LIST',
  encode(w, m) {
    w.u32(m.groups.length);
    for (const g of m.groups) w.str(g.groupId).str(g.state).u32(g.memberCount);
  },
  decode(r) {
    const n = r.count('n', 12, Limits.groupList);
    const groups = new Array<GroupListing>(n);
    let i = 0;
    try {
      for (; i < n; i++) {
        groups[i] = { groupId: r.str('group_id'), state: r.str('state'), memberCount: r.u32('member_count') };
      }
    } catch (err) {
      throw inEntry(err, `groups[${i}]`);
    }
    return { groups };
  },
});
