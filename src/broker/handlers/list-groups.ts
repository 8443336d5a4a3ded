/**
 * LIST_GROUPS: every group the coordinator knows or that holds committed offsets, sorted, at most 4096. A group with
 * offsets and no members is `empty`.
 */
import { Limits } from '../../protocol/limits.js';
import { GroupListReply, type GroupListing } from '../../protocol/messages/list-groups.js';
import { GroupState, consumerRuntimeOf } from '../consumer/index.js';
import { compareBytes } from '../consumer/offset-store.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = ({ broker, conn, correl }) => {
  const rt = consumerRuntimeOf(broker);
  const ids = [...new Set([...rt.groups.groupIds(), ...rt.offsets.groupIds()])].sort(compareBytes);
  const groups: GroupListing[] = ids.slice(0, Limits.groupList).map((groupId) => {
    const g = rt.groups.get(groupId);
    const memberCount = g?.members.size ?? 0;
    return { groupId, state: g && memberCount > 0 ? g.state : GroupState.EMPTY, memberCount };
  });
  conn.send(GroupListReply, correl, { groups });
};
