/**
 * AUTH_SCRAM_FINAL (0x20)   str client_final (cap 4096)
 * reply: AUTH_OK (0x81) carrying server-final, see auth.ts
 */
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';

export interface AuthScramFinal {
  clientFinal: string;
}

export const AuthScramFinalRequest = defineMessage<AuthScramFinal>({
  op: Op.AUTH_SCRAM_FINAL,
  name: 'AUTH_SCRAM_FINAL',
  encode(w, m) {
    w.str(m.clientFinal);
  },
  decode(r) {
    return { clientFinal: r.str('client_final', Caps.saslMessage) };
  },
});
