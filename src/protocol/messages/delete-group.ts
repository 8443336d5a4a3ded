/**
 * DELETE_GROUP (0x1E)   str group_id (cap 256)
 * reply: OK (0x86); ERR 15 for an unknown group, ERR 16 while it has live members
 */
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';

export interface DeleteGroup {
  groupId: string;
}

export const DeleteGroupRequest = defineMessage<DeleteGroup>({
  op: Op.DELETE_GROUP,
  name: 'DELETE_GROUP',
  encode(w, m) {
    w.str(m.groupId);
  },
  decode(r) {
    return { groupId: r.str('group_id', Caps.group) };
  },
});
