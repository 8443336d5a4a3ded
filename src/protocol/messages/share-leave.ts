/**
 * SHARE_LEAVE (0x62, crater)   str group (cap 256) · str member_id (cap 256)
 * reply: OK (0x86)
 *
 * Ends the membership: the member's acquired records become Available again at once (delivery counts kept). A
 * closed connection does the same.
 */
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';
import type { ShareMemberRef } from './share-heartbeat.js';

export const ShareLeaveRequest = defineMessage<ShareMemberRef>({
  op: Op.SHARE_LEAVE,
  name: 'SHARE_LEAVE',
  encode(w, m) {
    w.str(m.group).str(m.memberId);
  },
  decode(r) {
    return { group: r.str('group', Caps.group), memberId: r.str('member_id', Caps.memberId) };
  },
});
