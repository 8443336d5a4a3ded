/**
 * SHARE_HEARTBEAT (0x61, crater)   str group (cap 256) · str member_id (cap 256)
 * reply: OK (0x86)
 *
 * Keeps the membership alive; every SHARE_FETCH and SHARE_ACK counts as one too. A member silent for the session
 * timeout is removed and its acquired records become Available again (delivery counts kept).
 */
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';

export interface ShareMemberRef {
  group: string;
  memberId: string;
}

export const ShareHeartbeatRequest = defineMessage<ShareMemberRef>({
  op: Op.SHARE_HEARTBEAT,
  name: 'SHARE_HEARTBEAT',
  encode(w, m) {
    w.str(m.group).str(m.memberId);
  },
  decode(r) {
    return { group: r.str('group', Caps.group), memberId: r.str('member_id', Caps.memberId) };
  },
});
