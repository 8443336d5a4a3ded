/**
 * INIT_PRODUCER_ID: an empty payload or name issues an ephemeral pid (epoch 0, state on this connection only); a
 * name gets its stable pid and the next epoch, persisted to `__producer_state` before the reply. With crater's
 * resume fields the named producer's current session is re-bound to this connection instead.
 */
import { decodePayload } from '../../protocol/message.js';
import { InitProducerIdRequest, ProducerIdReply } from '../../protocol/messages/init-producer-id.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = async ({ broker, conn, correl, payload }) => {
  const request = decodePayload(InitProducerIdRequest, payload);
  const name = request.producerName ?? '';
  const id = await broker.producerState.initProducer(conn, name, name === '' ? undefined : request.resume);
  conn.send(ProducerIdReply, correl, id);
};
