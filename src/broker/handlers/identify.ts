/** IDENTIFY_CLIENT: answers with crater's own name and version, which is how clients detect extensions. */
import { decodePayload } from '../../protocol/message.js';
import { IdentifyAckReply, IdentifyClientRequest } from '../../protocol/messages/identify.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = ({ broker, conn, correl, payload }) => {
  decodePayload(IdentifyClientRequest, payload);
  conn.send(IdentifyAckReply, correl, { serverName: broker.identity.name, serverVersion: broker.identity.version });
};
