/**
 * END_TXN: commit (non-zero byte) or abort the connection's transaction; OK once the decision, the markers and
 * (on commit) the buffered offsets are durable. Repeating the decision already taken finishes or confirms it;
 * the opposite one is ERR 51.
 */
import { decodePayload } from '../../protocol/message.js';
import { OkReply } from '../../protocol/messages/control.js';
import { EndTxnRequest } from '../../protocol/messages/end-txn.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = async ({ broker, conn, correl, payload }) => {
  const request = decodePayload(EndTxnRequest, payload);
  await broker.transactions.end(conn, request.commit ? 'commit' : 'abort');
  conn.send(OkReply, correl, {});
};
