/** LIST_TOPICS: user topics sorted ascending, `__*` hidden, at most 1024. */
import { TopicListReply } from '../../protocol/messages/list-topics.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = ({ broker, conn, correl }) => {
  conn.send(TopicListReply, correl, { topics: broker.topics.listUserTopics() });
};
