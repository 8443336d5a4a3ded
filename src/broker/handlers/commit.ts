/**
 * COMMIT: stores whatever u64 the client sends as the group's committed offset (semantics.md §7) once it is
 * durable. Needs an earlier FETCH or SUBSCRIBE (ERR 8), an existing topic (ERR 5), a partition in 1..N (ERR 1) and,
 * after a JOIN_GROUP, a membership that has not lapsed (ERR 12). The in-memory cursor is left alone, as on MoonMQ:
 * the committed offset is where the group resumes once its connections have closed.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { decodePayload } from '../../protocol/message.js';
import { CommitRequest } from '../../protocol/messages/commit.js';
import { OkReply } from '../../protocol/messages/control.js';
import { consumerRuntimeOf } from '../consumer/index.js';
import { checkPartition } from '../consumer/nack.js';
import { peekSession, requireConsumer } from '../consumer/session.js';
import type { BrokerCore } from '../core.js';
import { HandlerError, type RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = async ({ broker, conn, correl, payload }) => {
  const req = decodePayload(CommitRequest, payload);
  const rt = consumerRuntimeOf(broker);
  const s = peekSession(conn);
  const group = requireConsumer(s, 'COMMIT');
  const topic = broker.topics.requireTopic(req.topic);
  checkPartition(topic, req.partition);
  if (rt.membershipLapsed(conn, s!)) {
    throw new HandlerError(ErrorCode.GROUP_MEMBER_UNKNOWN, 'group membership lapsed; rejoin before committing');
  }
  // The delivery commits of FETCHes answered before this COMMIT land first, so they never overwrite it.
  await rt.commitsSettled(group);
  await rt.offsets.commit(group, [{ topic: req.topic, partition: req.partition, offset: req.offset }]);
  conn.send(OkReply, correl, {});
};
