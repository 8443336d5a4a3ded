/**
 * HELLO (0x01)   u32 version          must be 1; shorter than 4 bytes is ERR 1 (wire.md §2.2)
 * WELCOME (0x80) u32 version          = 1
 */
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';

export interface Hello {
  version: number;
}

export const HelloRequest = defineMessage<Hello>({
  op: Op.HELLO,
  name: 'HELLO',
  encode(w, m) {
    w.u32(m.version);
  },
  decode(r) {
    return { version: r.u32('version') };
  },
});

export const WelcomeReply = defineMessage<Hello>({
  op: Op.WELCOME,
  name: 'WELCOME',
  encode(w, m) {
    w.u32(m.version);
  },
  decode(r) {
    return { version: r.u32('version') };
  },
});
