/** SHARE_DESCRIBE (crater): members, config and per-partition window state of a share group (ERR 15 if unknown). */
import { decodePayload } from '../../protocol/message.js';
import { ShareDescribeRequest, ShareDescriptionReply } from '../../protocol/messages/share-describe.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';
import { describeShareGroup, shareRuntimeOf } from '../share/index.js';

export const handler: RequestHandler<BrokerCore> = ({ broker, conn, correl, payload }) => {
  const req = decodePayload(ShareDescribeRequest, payload);
  conn.send(ShareDescriptionReply, correl, describeShareGroup(shareRuntimeOf(broker), req.group));
};
