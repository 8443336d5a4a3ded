/** DELETE_TOPIC: closes and removes the topic's directory (ERR 18 on `__*`), then tells the consumer runtime. */
import { decodePayload } from '../../protocol/message.js';
import { OkReply } from '../../protocol/messages/control.js';
import { DeleteTopicRequest } from '../../protocol/messages/delete-topic.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = async ({ broker, conn, correl, payload }) => {
  const { name } = decodePayload(DeleteTopicRequest, payload);
  await broker.topics.deleteTopic(name);
  broker.logger.info('topic deleted', { topic: name });
  await broker.consumer?.onTopicDeleted(name);
  conn.send(OkReply, correl, {});
};
