/** CREATE_TOPIC: name rules (semantics.md §12), `__*` and partition range ERR 1, exists ERR 7, topic cap ERR 6. */
import { decodePayload } from '../../protocol/message.js';
import { OkReply } from '../../protocol/messages/control.js';
import { CreateTopicRequest } from '../../protocol/messages/create-topic.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = async ({ broker, conn, correl, payload }) => {
  const { name, numPartitions } = decodePayload(CreateTopicRequest, payload);
  await broker.topics.createTopic(name, numPartitions);
  broker.logger.info('topic created', { topic: name, partitions: numPartitions });
  conn.send(OkReply, correl, {});
};
