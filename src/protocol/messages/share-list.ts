/**
 * SHARE_LIST (0x68, crater)   empty
 *
 * SHARE_GROUP_LIST (0xE4, crater)
 *   u32 n × (str group · u32 members · u32 partitions)   sorted by group name
 */
import { Caps, Limits } from '../limits.js';
import { defineMessage, emptyMessage } from '../message.js';
import { Op } from '../opcodes.js';

export interface ShareGroupListing {
  group: string;
  members: number;
  partitions: number;
}

export interface ShareGroupList {
  groups: ShareGroupListing[];
}

export const ShareListRequest = emptyMessage(Op.SHARE_LIST, 'SHARE_LIST');

export const ShareGroupListReply = defineMessage<ShareGroupList>({
  op: Op.SHARE_GROUP_LIST,
  name: 'SHARE_GROUP_LIST',
  encode(w, m) {
    w.u32(m.groups.length);
    for (const g of m.groups) w.str(g.group).u32(g.members).u32(g.partitions);
  },
  decode(r) {
    const n = r.count('count', 12, Limits.groupList);
    const groups = new Array<ShareGroupListing>(n);
    for (let i = 0; i < n; i++)
      groups[i] = {
        group: r.str(`groups[${i}].group`, Caps.group),
        members: r.u32(`groups[${i}].members`),
        partitions: r.u32(`groups[${i}].partitions`),
      };
    return { groups };
  },
});
