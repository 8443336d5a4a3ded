/**
 * LEAVE_GROUP (0x11)   str group_id (cap 256) · str member_id (cap 256)
 * reply: OK (0x86)
 *
 * The broker ignores member_id and uses the member bound to the connection; it is still sent and decoded.
 */
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';

export interface GroupMember {
  groupId: string;
  memberId: string;
}

export const LeaveGroupRequest = defineMessage<GroupMember>({
  op: Op.LEAVE_GROUP,
  name: 'LEAVE_GROUP',
  encode(w, m) {
    w.str(m.groupId).str(m.memberId);
  },
  decode(r) {
    return { groupId: r.str('group_id', Caps.group), memberId: r.str('member_id', Caps.memberId) };
  },
});
