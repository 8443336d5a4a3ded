/** PRODUCE_IDEMPOTENT: one record with (pid, seq, epoch); the checks and the memo are in producer-state/. */
import { decodePayload } from '../../protocol/message.js';
import { ProduceAckReply } from '../../protocol/messages/produce.js';
import { ProduceIdempotentRequest } from '../../protocol/messages/produce-idempotent.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';
import { produceIdempotentSingle } from '../producer-state/idempotent-produce.js';

export const handler: RequestHandler<BrokerCore> = ({ broker, conn, op, correl, payload }) => {
  const request = decodePayload(ProduceIdempotentRequest, payload);
  return produceIdempotentSingle(broker, conn, request, op, correl, (ack) => conn.send(ProduceAckReply, correl, ack));
};
