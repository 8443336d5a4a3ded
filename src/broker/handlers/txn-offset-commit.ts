/**
 * TXN_OFFSET_COMMIT: buffers a group's offsets in the connection's transaction; they reach __consumer_offsets only
 * when it commits. The topic must exist (ERR 5) and every partition be in 1..N (ERR 1); nothing is buffered then.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { decodePayload } from '../../protocol/message.js';
import { OkReply } from '../../protocol/messages/control.js';
import { TxnOffsetCommitRequest } from '../../protocol/messages/txn-offset-commit.js';
import type { BrokerCore } from '../core.js';
import { HandlerError, type RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = ({ broker, conn, correl, payload }) => {
  const request = decodePayload(TxnOffsetCommitRequest, payload);
  for (const o of request.offsets) {
    const topic = broker.topics.requireTopic(o.topic);
    if (o.partition < 1 || o.partition > topic.partitions.length) {
      throw new HandlerError(
        ErrorCode.BAD_FRAME,
        `partition ${o.partition} out of range 1..${topic.partitions.length} for '${o.topic}'`,
      );
    }
  }
  broker.transactions.addOffsets(conn, request.group, request.offsets);
  conn.send(OkReply, correl, {});
};
