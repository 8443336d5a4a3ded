/**
 * JOIN_GROUP: binds the connection to a member of the group (an empty member id reuses the connection's, else
 * becomes 8 hex characters of the connection id), rebalances with the range strategy and answers with this member's
 * share: every subscribed topic, sorted, even those it got no partition of. Unknown topics are ERR 5; a second,
 * different group on the same connection ERR 13; topic_count 0 or over 256 ERR 1 (at decode).
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { decodePayload } from '../../protocol/message.js';
import { GroupAssignmentReply, JoinGroupRequest } from '../../protocol/messages/join-group.js';
import { consumerRuntimeOf } from '../consumer/index.js';
import { compareBytes } from '../consumer/offset-store.js';
import type { BrokerCore } from '../core.js';
import { HandlerError, type RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = ({ broker, conn, correl, payload }) => {
  const req = decodePayload(JoinGroupRequest, payload);
  const rt = consumerRuntimeOf(broker);
  const s = rt.session(conn);
  const current = s.membership;
  if (current && current.groupId !== req.groupId) {
    throw new HandlerError(ErrorCode.GROUP_CONFLICT, `connection already joined group '${current.groupId}'`);
  }
  const topics = [...new Set(req.topics)];
  for (const t of topics) broker.topics.requireTopic(t);
  const memberId = req.memberId || current?.memberId || conn.id.subarray(0, 4).toString('hex');
  if (current && current.memberId !== memberId && rt.groups.isMember(current.groupId, current.memberId, conn)) {
    rt.groups.leave(current.groupId, current.memberId, conn);
  }
  const assignment = rt.groups.join(req.groupId, memberId, topics, conn);
  s.membership = { groupId: req.groupId, memberId };
  conn.send(GroupAssignmentReply, correl, {
    memberId,
    topics: topics.sort(compareBytes).map((topic) => ({ topic, partitions: [...(assignment.get(topic) ?? [])] })),
  });
};
