/**
 * DELETE_GROUP: refuses a group with live members (ERR 16) or one nobody knows (ERR 15); otherwise tombstones every
 * committed offset of the group in `__consumer_offsets`, forgets its cursors and NACK counts, and replies once the
 * tombstones are durable.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { decodePayload } from '../../protocol/message.js';
import { OkReply } from '../../protocol/messages/control.js';
import { DeleteGroupRequest } from '../../protocol/messages/delete-group.js';
import { consumerRuntimeOf } from '../consumer/index.js';
import type { BrokerCore } from '../core.js';
import { HandlerError, type RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = async ({ broker, conn, correl, payload }) => {
  const { groupId } = decodePayload(DeleteGroupRequest, payload);
  const rt = consumerRuntimeOf(broker);
  const known = rt.groups.get(groupId) !== undefined || rt.offsets.hasGroup(groupId);
  if (!known) throw new HandlerError(ErrorCode.GROUP_MISSING, `group '${groupId}' does not exist`);
  rt.groups.delete(groupId);
  rt.cursors.dropGroup(groupId);
  rt.nacks.dropGroup(groupId);
  await rt.offsets.deleteGroup(groupId);
  broker.logger.info('group deleted', { group: groupId });
  conn.send(OkReply, correl, {});
};
