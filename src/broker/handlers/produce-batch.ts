/**
 * PRODUCE_BATCH: records partitioned one by one in list order, one append per touched partition, then one sync per
 * touched partition. A partial append answers the landed prefix with err 7; a failure before anything landed (or a
 * missing topic) answers an ERROR frame instead (wire.md §13.4).
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { decodePayload } from '../../protocol/message.js';
import { ProduceBatchAckReply, ProduceBatchRequest } from '../../protocol/messages/produce-batch.js';
import { BatchFlag } from '../../protocol/opcodes.js';
import type { BrokerCore } from '../core.js';
import { HandlerError, type RequestHandler } from '../handler.js';
import { hasFixedPartition, planFixedPartition } from '../fixed-partition.js';
import { appendPlanned, appendRecords, checkCodec, replyWhenDurable } from '../produce-path.js';
import { publicErrorMessage } from '../public-message.js';
import { produceIdempotentBatch } from '../producer-state/idempotent-produce.js';

export const handler: RequestHandler<BrokerCore> = ({ broker, conn, op, correl, payload }) => {
  const request = decodePayload(ProduceBatchRequest, payload);
  if (request.flags & BatchFlag.IDEMPOTENT && !hasFixedPartition(request)) {
    // Sequence checks, dedup and the durable memo: producer-state/idempotent-produce.ts.
    return produceIdempotentBatch(broker, conn, request, op, correl, (reply) =>
      conn.send(ProduceBatchAckReply, correl, reply),
    );
  }
  checkCodec(request.codec);
  const topic = broker.topics.requireTopic(request.topic);
  const { acks, error, toSync } = hasFixedPartition(request)
    ? appendPlanned(broker, topic, request.codec, request.records, planFixedPartition(topic, request))
    : appendRecords(broker, topic, request.codec, request.records);
  if (acks.length === 0) throw new HandlerError(ErrorCode.INTERNAL, error?.message ?? 'append failed');
  const reply = error
    ? {
        acks,
        errorCode: ErrorCode.INTERNAL,
        errorMessage: `${acks.length} of ${request.records.length} records appended: ${publicErrorMessage(error, broker.dataDir)}`,
      }
    : { acks, errorCode: ErrorCode.NONE, errorMessage: '' };
  return replyWhenDurable(conn, toSync, () => conn.send(ProduceBatchAckReply, correl, reply), op, correl);
};
