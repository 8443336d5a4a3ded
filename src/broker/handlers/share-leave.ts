/** SHARE_LEAVE (crater): ends the membership and releases its records (counts kept) once that is durable. */
import { decodePayload } from '../../protocol/message.js';
import { OkReply } from '../../protocol/messages/control.js';
import { ShareLeaveRequest } from '../../protocol/messages/share-leave.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';
import { shareRuntimeOf } from '../share/index.js';

export const handler: RequestHandler<BrokerCore> = async ({ broker, conn, correl, payload }) => {
  const req = decodePayload(ShareLeaveRequest, payload);
  await shareRuntimeOf(broker).leave(conn, req.group, req.memberId);
  conn.send(OkReply, correl, {});
};
