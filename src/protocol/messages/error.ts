/**
 * ERROR (0xFE)   u16 code · str message
 */
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';

export interface ErrorReply {
  code: number;
  message: string;
}

export const ErrorFrame = defineMessage<ErrorReply>({
  op: Op.ERROR,
  name: 'ERROR',
  encode(w, m) {
    w.u16(m.code).str(m.message);
  },
  decode(r) {
    return { code: r.u16('code'), message: r.str('message') };
  },
});
