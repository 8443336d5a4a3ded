/** NACK: count a failed delivery; rewind the group to the record, or dead-letter it at MaxDeliveries (nack.ts). */
import { decodePayload } from '../../protocol/message.js';
import { NackAckReply, NackRequest } from '../../protocol/messages/nack.js';
import { consumerRuntimeOf } from '../consumer/index.js';
import { handleNack } from '../consumer/nack.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = async ({ broker, conn, correl, payload }) => {
  const req = decodePayload(NackRequest, payload);
  const ack = await handleNack(consumerRuntimeOf(broker), conn, req);
  conn.send(NackAckReply, correl, ack);
};
