/**
 * GROUP_HEARTBEAT (0x12)   str group_id (cap 256) · str member_id (cap 256)
 * reply: OK (0x86)
 *
 * As with LEAVE_GROUP, the broker ignores member_id in favour of the connection's member.
 */
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';
import type { GroupMember } from './leave-group.js';

export const GroupHeartbeatRequest = defineMessage<GroupMember>({
  op: Op.GROUP_HEARTBEAT,
  name: 'GROUP_HEARTBEAT',
  encode(w, m) {
    w.str(m.groupId).str(m.memberId);
  },
  decode(r) {
    return { groupId: r.str('group_id', Caps.group), memberId: r.str('member_id', Caps.memberId) };
  },
});
