/** DESCRIBE_TOPIC: partition count and the keys set in the sidecar, sorted, values as strings. */
import { decodePayload } from '../../protocol/message.js';
import { DescribeTopicRequest, TopicDescriptionReply } from '../../protocol/messages/describe-topic.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = ({ broker, conn, correl, payload }) => {
  const { name } = decodePayload(DescribeTopicRequest, payload);
  const topic = broker.topics.requireTopic(name);
  const config = Object.keys(topic.config)
    .sort()
    .map((key) => ({ key, value: topic.config[key]! }));
  conn.send(TopicDescriptionReply, correl, { name, partitionCount: topic.partitions.length, config });
};
