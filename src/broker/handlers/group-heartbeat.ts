/**
 * GROUP_HEARTBEAT: keeps the connection's membership alive. The member id in the frame is ignored in favour of the
 * connection's member; no membership, another group, or a lapsed membership is ERR 12.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { decodePayload } from '../../protocol/message.js';
import { OkReply } from '../../protocol/messages/control.js';
import { GroupHeartbeatRequest } from '../../protocol/messages/group-heartbeat.js';
import { consumerRuntimeOf } from '../consumer/index.js';
import { peekSession } from '../consumer/session.js';
import type { BrokerCore } from '../core.js';
import { HandlerError, type RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = ({ broker, conn, correl, payload }) => {
  const req = decodePayload(GroupHeartbeatRequest, payload);
  const m = peekSession(conn)?.membership;
  if (!m || m.groupId !== req.groupId) {
    throw new HandlerError(ErrorCode.GROUP_MEMBER_UNKNOWN, `connection is not a member of group '${req.groupId}'`);
  }
  consumerRuntimeOf(broker).groups.heartbeat(m.groupId, m.memberId, conn);
  conn.send(OkReply, correl, {});
};
