/** SHARE_LIST (crater): every share group with its member and share-partition counts. */
import { decodePayload } from '../../protocol/message.js';
import { ShareGroupListReply, ShareListRequest } from '../../protocol/messages/share-list.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';
import { listShareGroups, shareRuntimeOf } from '../share/index.js';

export const handler: RequestHandler<BrokerCore> = ({ broker, conn, correl, payload }) => {
  decodePayload(ShareListRequest, payload);
  conn.send(ShareGroupListReply, correl, listShareGroups(shareRuntimeOf(broker)));
};
