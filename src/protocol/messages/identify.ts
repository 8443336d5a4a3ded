/**
 * IDENTIFY_CLIENT (0x0D)   str name (cap 128) · str version (cap 64)
 * IDENTIFY_ACK (0x87)      str server_name · str server_version      MoonMQ answers "MoonMQ", "v0.01"
 *
 * Caps apply on decode (over the cap: ERR 1, the connection stays open); encoders write what they are given, the
 * client checks caps before sending.
 */
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';

export interface IdentifyClient {
  name: string;
  version: string;
}

export interface IdentifyAck {
  serverName: string;
  serverVersion: string;
}

export const IdentifyClientRequest = defineMessage<IdentifyClient>({
  op: Op.IDENTIFY_CLIENT,
  name: 'IDENTIFY_CLIENT',
  encode(w, m) {
    w.str(m.name).str(m.version);
  },
  decode(r) {
    return { name: r.str('name', Caps.clientName), version: r.str('version', Caps.clientVersion) };
  },
});

export const IdentifyAckReply = defineMessage<IdentifyAck>({
  op: Op.IDENTIFY_ACK,
  name: 'IDENTIFY_ACK',
  encode(w, m) {
    w.str(m.serverName).str(m.serverVersion);
  },
  decode(r) {
    return { serverName: r.str('server_name'), serverVersion: r.str('server_version') };
  },
});
