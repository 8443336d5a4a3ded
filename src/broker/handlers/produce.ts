/** PRODUCE: one record; acks=leader answers only after the partition's fsync, acks=none never syncs. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { decodePayload } from '../../protocol/message.js';
import { ProduceAckReply, ProduceRequest } from '../../protocol/messages/produce.js';
import type { BrokerCore } from '../core.js';
import { HandlerError, type RequestHandler } from '../handler.js';
import { appendRecords, checkCodec, replyWhenDurable } from '../produce-path.js';

export const handler: RequestHandler<BrokerCore> = ({ broker, conn, op, correl, payload }) => {
  const request = decodePayload(ProduceRequest, payload);
  checkCodec(request.codec);
  const topic = broker.topics.requireTopic(request.topic);
  const { acks, error, toSync } = appendRecords(broker, topic, request.codec, [request]);
  const ack = acks[0];
  if (!ack) throw new HandlerError(ErrorCode.INTERNAL, error?.message ?? 'append failed');
  return replyWhenDurable(conn, toSync, () => conn.send(ProduceAckReply, correl, ack), op, correl);
};
