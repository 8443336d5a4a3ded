/** SHARE_ACK (crater): ACCEPT / RELEASE / REJECT / RENEW per partition; answered once the result is durable. */
import { decodePayload } from '../../protocol/message.js';
import { ShareAckRequest, ShareAckResultReply } from '../../protocol/messages/share-ack.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';
import { shareRuntimeOf } from '../share/index.js';

export const handler: RequestHandler<BrokerCore> = async ({ broker, conn, correl, payload }) => {
  const req = decodePayload(ShareAckRequest, payload);
  conn.send(ShareAckResultReply, correl, await shareRuntimeOf(broker).ack(conn, req));
};
