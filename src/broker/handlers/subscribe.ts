/**
 * SUBSCRIBE: fixes push mode (a FETCH on the same connection is ERR 8), adds the topic (ERR 5 when missing), replies
 * OK and starts the connection's push loop, which then covers every topic subscribed so far.
 */
import { decodePayload } from '../../protocol/message.js';
import { OkReply } from '../../protocol/messages/control.js';
import { SubscribeRequest } from '../../protocol/messages/subscribe.js';
import { consumerRuntimeOf } from '../consumer/index.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = ({ broker, conn, correl, payload }) => {
  const req = decodePayload(SubscribeRequest, payload);
  const rt = consumerRuntimeOf(broker);
  const s = rt.enter(conn, 'push', req);
  conn.send(OkReply, correl, {});
  rt.startPush(conn, s);
};
