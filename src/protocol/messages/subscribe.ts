/**
 * SUBSCRIBE (0x05)   str topic (cap 249) · str group (cap 256) · [u8 isolation]
 * reply: OK (0x86), then RECORD frames pushed with the zero correl (never RECORD_BATCH)
 *
 * An absent isolation byte decodes as undefined (read_uncommitted). Caps apply on decode only.
 */
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';

export interface Subscribe {
  topic: string;
  group: string;
  isolation?: number | undefined;
}

export const SubscribeRequest = defineMessage<Subscribe>({
  op: Op.SUBSCRIBE,
  name: 'SUBSCRIBE',
  encode(w, m) {
    w.str(m.topic).str(m.group);
    if (m.isolation !== undefined) w.u8(m.isolation);
  },
  decode(r) {
    return {
      topic: r.str('topic', Caps.topic),
      group: r.str('group', Caps.group),
      isolation: r.optionalU8('isolation'),
    };
  },
});
