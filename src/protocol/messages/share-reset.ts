/**
 * SHARE_RESET (0x67, crater)
 *   str group (cap 256) · str topic (cap 249; empty = every share-partition the group has state for)
 *   u8 to (0 earliest · 1 latest · 2 offset) · u64 offset (read only with 2)
 * reply: OK (0x86)
 *
 * Moves the SPSO of each share-partition to the log start, the end (the LEO, or the LSO under read_committed) or
 * `offset`, and drops its in-flight records. Refused with ERR_GROUP_NOT_EMPTY while the group has members.
 */
import { DecodeError } from '../../errors.js';
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op, ShareResetTo, type ShareResetToValue } from '../opcodes.js';

export interface ShareReset {
  group: string;
  topic: string;
  to: ShareResetToValue;
  offset: bigint;
}

export const ShareResetRequest = defineMessage<ShareReset>({
  op: Op.SHARE_RESET,
  name: 'SHARE_RESET',
  encode(w, m) {
    w.str(m.group).str(m.topic).u8(m.to).u64(m.offset);
  },
  decode(r) {
    const group = r.str('group', Caps.group);
    const topic = r.str('topic', Caps.topic);
    const at = r.offset;
    const to = r.u8('to');
    if (to > ShareResetTo.OFFSET) throw new DecodeError('to', at, `unknown reset target ${to}`);
    return { group, topic, to: to as ShareResetToValue, offset: r.u64('offset') };
  },
});
