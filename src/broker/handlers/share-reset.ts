/** SHARE_RESET (crater): moves the group's SPSOs; refused while it has members (ERR 16). */
import { decodePayload } from '../../protocol/message.js';
import { OkReply } from '../../protocol/messages/control.js';
import { ShareResetRequest } from '../../protocol/messages/share-reset.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';
import { resetShareGroup, shareRuntimeOf } from '../share/index.js';

export const handler: RequestHandler<BrokerCore> = async ({ broker, conn, correl, payload }) => {
  const req = decodePayload(ShareResetRequest, payload);
  await resetShareGroup(shareRuntimeOf(broker), req);
  conn.send(OkReply, correl, {});
};
