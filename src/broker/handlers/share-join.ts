/** SHARE_JOIN (crater): a new membership of a share group for this connection; every topic must exist (ERR 5). */
import { decodePayload } from '../../protocol/message.js';
import { ShareJoinRequest, ShareMemberReply } from '../../protocol/messages/share-join.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';
import { shareRuntimeOf } from '../share/index.js';

export const handler: RequestHandler<BrokerCore> = ({ broker, conn, correl, payload }) => {
  const req = decodePayload(ShareJoinRequest, payload);
  conn.send(ShareMemberReply, correl, shareRuntimeOf(broker).join(conn, req.group, req.topics));
};
