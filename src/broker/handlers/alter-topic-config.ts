/** ALTER_TOPIC_CONFIG: unknown or immutable keys and non-positive numbers are ERR 17; internal topics ERR 18. */
import { decodePayload } from '../../protocol/message.js';
import { AlterTopicConfigRequest } from '../../protocol/messages/alter-topic-config.js';
import { OkReply } from '../../protocol/messages/control.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = async ({ broker, conn, correl, payload }) => {
  const { name, entries } = decodePayload(AlterTopicConfigRequest, payload);
  await broker.topics.alterConfig(
    name,
    entries.map((e) => [e.key, e.value] as const),
  );
  broker.logger.info('topic config altered', { topic: name, keys: entries.map((e) => e.key) });
  conn.send(OkReply, correl, {});
};
