/**
 * DESCRIBE_GROUP: state, members sorted by id (each with its topics sorted and their assigned partitions) and the
 * committed offsets sorted by (topic, partition). A group neither the coordinator nor the offset store knows is
 * ERR 15.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { decodePayload } from '../../protocol/message.js';
import {
  DescribeGroupRequest,
  GroupDescriptionReply,
  type GroupMemberDescription,
} from '../../protocol/messages/describe-group.js';
import { type ConsumerService, GroupState, consumerRuntimeOf } from '../consumer/index.js';
import { compareBytes } from '../consumer/offset-store.js';
import type { BrokerCore } from '../core.js';
import { type ConnectionHandle, HandlerError, type RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = ({ broker, conn, correl, payload }) => {
  const { groupId } = decodePayload(DescribeGroupRequest, payload);
  const rt = consumerRuntimeOf(broker);
  // Offsets a FETCH delivered are committed once its reply left; describe the group after that, not before.
  const pending = rt.commitsSettled(groupId);
  if (pending) return pending.then(() => describe(conn, correl, rt, groupId));
  describe(conn, correl, rt, groupId);
  return undefined;
};

function describe(conn: ConnectionHandle, correl: Buffer, rt: ConsumerService, groupId: string): void {
  if (conn.closed) return;
  const group = rt.groups.get(groupId);
  const offsets = rt.offsets.offsetsOf(groupId);
  if (!group && offsets.length === 0)
    throw new HandlerError(ErrorCode.GROUP_MISSING, `group '${groupId}' does not exist`);
  const members: GroupMemberDescription[] = [];
  for (const memberId of [...(group?.members.keys() ?? [])].sort(compareBytes)) {
    const member = group!.members.get(memberId)!;
    const assignment = rt.groups.assignmentOf(groupId, memberId) ?? new Map<string, number[]>();
    const topics = [...new Set(member.topics)].sort(compareBytes);
    members.push({
      memberId,
      topics: topics.map((topic) => ({ topic, partitions: [...(assignment.get(topic) ?? [])] })),
    });
  }
  const state = group && group.members.size > 0 ? group.state : GroupState.EMPTY;
  conn.send(GroupDescriptionReply, correl, { groupId, state, members, offsets });
}
