/**
 * END_TXN (0x14)   u8 commit      non-zero commits, 0 aborts
 * reply: OK (0x86)
 */
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';

export interface EndTxn {
  commit: boolean;
}

export const EndTxnRequest = defineMessage<EndTxn>({
  op: Op.END_TXN,
  name: 'END_TXN',
  encode(w, m) {
    w.u8(m.commit ? 1 : 0);
  },
  decode(r) {
    return { commit: r.u8('commit') !== 0 };
  },
});
