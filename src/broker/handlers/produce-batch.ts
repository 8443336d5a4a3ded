/**
 * PRODUCE_BATCH: records partitioned one by one in list order, one append per touched partition, then one sync per
 * touched partition. A partial append answers the landed prefix with err 7; a failure before anything landed (or a
 * missing topic) answers an ERROR frame instead (wire.md §13.4).
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { decodePayload } from '../../protocol/message.js';
import { ProduceBatchAckReply, ProduceBatchRequest } from '../../protocol/messages/produce-batch.js';
import {
  type ProduceBatchAckTable,
  type ProduceBatchTable,
  ProduceBatchAckTableReply,
  decodeProduceBatchTable,
} from '../../protocol/messages/produce-batch-table.js';
import { BatchFlag } from '../../protocol/opcodes.js';
import type { BrokerCore } from '../core.js';
import { HandlerError, type RequestContext, type RequestHandler } from '../handler.js';
import { fixedPartitionOf, hasFixedPartition, planFixedPartition } from '../fixed-partition.js';
import { appendTable, planTable } from '../produce-table.js';
import { appendPlanned, appendRecords, checkCodec, replyWhenDurable, replyWhenSynced } from '../produce-path.js';
import { publicErrorMessage } from '../public-message.js';
import { produceIdempotentBatch } from '../producer-state/idempotent-produce.js';

/** Flags and codec of a batch the table path takes: neither IDEMPOTENT nor HEADERS, codec none (produce-table.ts). */
function isPlain(payload: Buffer): boolean {
  return payload.length >= 2 && (payload[0]! & (BatchFlag.IDEMPOTENT | BatchFlag.HEADERS)) === 0 && payload[1] === 0;
}

export const handler: RequestHandler<BrokerCore> = (ctx) => {
  const table = isPlain(ctx.payload) ? decodeProduceBatchTable(ctx.payload) : undefined;
  return table ? produceTable(ctx, table) : produceRecords(ctx);
};

/** The table path: the same checks, appends and reply as produceRecords, from arrays. */
function produceTable(
  { broker, conn, op, correl }: RequestContext<BrokerCore>,
  t: ProduceBatchTable,
): Promise<void> | undefined {
  const topic = broker.topics.requireTopic(t.head.topic);
  const fixed = hasFixedPartition(t.head) ? fixedPartitionOf(topic, t.head) : undefined;
  const { ackCount, assigned, offsets, error, durable } = appendTable(
    broker,
    topic,
    t,
    planTable(broker, topic, t, fixed),
  );
  if (ackCount === 0) throw new HandlerError(ErrorCode.INTERNAL, error?.message ?? 'append failed');
  const reply: ProduceBatchAckTable = error
    ? {
        count: ackCount,
        partitions: assigned,
        offsets,
        errorCode: ErrorCode.INTERNAL,
        errorMessage: `${ackCount} of ${t.count} records appended: ${publicErrorMessage(error, broker.dataDir)}`,
      }
    : { count: ackCount, partitions: assigned, offsets, errorCode: ErrorCode.NONE, errorMessage: '' };
  return replyWhenSynced(conn, durable, () => conn.send(ProduceBatchAckTableReply, correl, reply), op, correl);
}

function produceRecords({ broker, conn, op, correl, payload }: RequestContext<BrokerCore>): Promise<void> | undefined {
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
}
