/** SHARE_ALTER (crater): sets group configs (ERR 17 on a bad key or value, nothing applied); durable before OK. */
import { decodePayload } from '../../protocol/message.js';
import { OkReply } from '../../protocol/messages/control.js';
import { ShareAlterRequest } from '../../protocol/messages/share-alter.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';
import { shareRuntimeOf } from '../share/index.js';

export const handler: RequestHandler<BrokerCore> = async ({ broker, conn, correl, payload }) => {
  const req = decodePayload(ShareAlterRequest, payload);
  await shareRuntimeOf(broker).alter(
    req.group,
    req.entries.map((e) => [e.key, e.value] as const),
  );
  conn.send(OkReply, correl, {});
};
