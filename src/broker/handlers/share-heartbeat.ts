/** SHARE_HEARTBEAT (crater): keeps a membership alive; unknown or lapsed on this connection is ERR 12. */
import { decodePayload } from '../../protocol/message.js';
import { OkReply } from '../../protocol/messages/control.js';
import { ShareHeartbeatRequest } from '../../protocol/messages/share-heartbeat.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';
import { shareRuntimeOf } from '../share/index.js';

export const handler: RequestHandler<BrokerCore> = ({ broker, conn, correl, payload }) => {
  const req = decodePayload(ShareHeartbeatRequest, payload);
  shareRuntimeOf(broker).heartbeat(conn, req.group, req.memberId);
  conn.send(OkReply, correl, {});
};
