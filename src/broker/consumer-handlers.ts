/**
 * The consumer side's entry points: the handlers it registers (FETCH, SUBSCRIBE, COMMIT, groups, NACK) and the
 * factory for its runtime. The broker core reads only these two exports.
 */
import { Op } from '../protocol/opcodes.js';
import { createConsumerRuntime as createRuntime } from './consumer/index.js';
import type { BrokerCore, ConsumerRuntime } from './core.js';
import type { RequestHandler } from './handler.js';
import { handler as commit } from './handlers/commit.js';
import { handler as deleteGroup } from './handlers/delete-group.js';
import { handler as describeGroup } from './handlers/describe-group.js';
import { handler as fetch } from './handlers/fetch.js';
import { handler as groupHeartbeat } from './handlers/group-heartbeat.js';
import { handler as joinGroup } from './handlers/join-group.js';
import { handler as leaveGroup } from './handlers/leave-group.js';
import { handler as listGroups } from './handlers/list-groups.js';
import { handler as nack } from './handlers/nack.js';
import { handler as subscribe } from './handlers/subscribe.js';

export const consumerHandlers: ReadonlyArray<readonly [op: number, handler: RequestHandler<BrokerCore>]> = [
  [Op.FETCH, fetch],
  [Op.SUBSCRIBE, subscribe],
  [Op.COMMIT, commit],
  [Op.JOIN_GROUP, joinGroup],
  [Op.LEAVE_GROUP, leaveGroup],
  [Op.GROUP_HEARTBEAT, groupHeartbeat],
  [Op.LIST_GROUPS, listGroups],
  [Op.DESCRIBE_GROUP, describeGroup],
  [Op.DELETE_GROUP, deleteGroup],
  [Op.NACK, nack],
];

export function createConsumerRuntime(broker: BrokerCore): ConsumerRuntime | undefined {
  return createRuntime(broker);
}
