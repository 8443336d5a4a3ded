/**
 * LEAVE_GROUP: drops the connection's membership and rebalances the rest; the connection then reads every partition
 * again. The member id in the frame is ignored; no membership or another group is ERR 12. Leaving after the
 * membership lapsed just unbinds it.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { decodePayload } from '../../protocol/message.js';
import { OkReply } from '../../protocol/messages/control.js';
import { LeaveGroupRequest } from '../../protocol/messages/leave-group.js';
import { consumerRuntimeOf } from '../consumer/index.js';
import { peekSession } from '../consumer/session.js';
import type { BrokerCore } from '../core.js';
import { HandlerError, type RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = ({ broker, conn, correl, payload }) => {
  const req = decodePayload(LeaveGroupRequest, payload);
  const s = peekSession(conn);
  const m = s?.membership;
  if (!s || !m || m.groupId !== req.groupId) {
    throw new HandlerError(ErrorCode.GROUP_MEMBER_UNKNOWN, `connection is not a member of group '${req.groupId}'`);
  }
  const groups = consumerRuntimeOf(broker).groups;
  if (groups.isMember(m.groupId, m.memberId, conn)) groups.leave(m.groupId, m.memberId, conn);
  s.membership = undefined;
  conn.send(OkReply, correl, {});
};
