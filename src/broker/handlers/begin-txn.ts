/** BEGIN_TXN: opens a transaction for the connection's durable producer (ERR 51 without one or with one open). */
import { decodePayload } from '../../protocol/message.js';
import { BeginTxnRequest } from '../../protocol/messages/begin-txn.js';
import { OkReply } from '../../protocol/messages/control.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = async ({ broker, conn, correl, payload }) => {
  decodePayload(BeginTxnRequest, payload);
  await broker.transactions.begin(conn);
  conn.send(OkReply, correl, {});
};
