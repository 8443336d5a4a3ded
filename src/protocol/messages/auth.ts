/**
 * AUTH (0x02)      str username (cap 256) · str password (cap 1024), plaintext
 * AUTH_OK (0x81)   [str server_final]     empty after plain AUTH; "v=…" after SCRAM (wire.md §13.1: optional)
 *
 * An absent server_final decodes as undefined, which a caller reads as the empty message. Caps apply on decode;
 * encoders write what they are given (the client checks caps before sending).
 */
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';

export interface Auth {
  username: string;
  password: string;
}

export interface AuthOk {
  serverFinal?: string | undefined;
}

export const AuthRequest = defineMessage<Auth>({
  op: Op.AUTH,
  name: 'AUTH',
  encode(w, m) {
    w.str(m.username).str(m.password);
  },
  decode(r) {
    return { username: r.str('username', Caps.username), password: r.str('password', Caps.password) };
  },
});

export const AuthOkReply = defineMessage<AuthOk>({
  op: Op.AUTH_OK,
  name: 'AUTH_OK',
  encode(w, m) {
    if (m.serverFinal !== undefined) w.str(m.serverFinal);
  },
  decode(r) {
    return { serverFinal: r.hasMore() ? r.str('server_final', Caps.saslMessage) : undefined };
  },
});
