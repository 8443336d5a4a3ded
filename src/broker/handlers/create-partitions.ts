/** CREATE_PARTITIONS: grow only (ERR 21), never an internal topic (ERR 18). Keys may move to new partitions. */
import { decodePayload } from '../../protocol/message.js';
import { OkReply } from '../../protocol/messages/control.js';
import { CreatePartitionsRequest } from '../../protocol/messages/create-partitions.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = async ({ broker, conn, correl, payload }) => {
  const { name, newTotal } = decodePayload(CreatePartitionsRequest, payload);
  await broker.topics.createPartitions(name, newTotal);
  broker.logger.info('partitions added', { topic: name, partitions: newTotal });
  conn.send(OkReply, correl, {});
};
