/**
 * AUTH_SCRAM (0x1F)       str mechanism (cap 64; upper-cased, must be "SCRAM-SHA-256") · str client_first (cap 4096)
 * AUTH_CHALLENGE (0x91)   str server_first (cap 4096)
 *
 * Caps apply on decode; encoders write what they are given.
 */
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';

export interface AuthScram {
  mechanism: string;
  clientFirst: string;
}

export interface AuthChallenge {
  serverFirst: string;
}

export const AuthScramRequest = defineMessage<AuthScram>({
  op: Op.AUTH_SCRAM,
  name: 'AUTH_SCRAM',
  encode(w, m) {
    w.str(m.mechanism).str(m.clientFirst);
  },
  decode(r) {
    return {
      mechanism: r.str('mechanism', Caps.saslMechanism),
      clientFirst: r.str('client_first', Caps.saslMessage),
    };
  },
});

export const AuthChallengeReply = defineMessage<AuthChallenge>({
  op: Op.AUTH_CHALLENGE,
  name: 'AUTH_CHALLENGE',
  encode(w, m) {
    w.str(m.serverFirst);
  },
  decode(r) {
    return { serverFirst: r.str('server_first', Caps.saslMessage) };
  },
});
