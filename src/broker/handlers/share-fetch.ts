/**
 * SHARE_FETCH (crater): applies the acks riding on it, acquires up to max_records for the member (waiting up to
 * max_wait_ms when there are none) and answers once the new state is durable.
 */
import { decodePayload } from '../../protocol/message.js';
import { ShareFetchRequest } from '../../protocol/messages/share-fetch.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';
import { shareRuntimeOf } from '../share/index.js';
import { encodeShareRecordsFrame } from '../share/record-frames.js';

export const handler: RequestHandler<BrokerCore> = async ({ broker, conn, correl, payload }) => {
  const req = decodePayload(ShareFetchRequest, payload);
  const reply = await shareRuntimeOf(broker).fetch(conn, req);
  if (!conn.closed) conn.sendRaw(encodeShareRecordsFrame(correl, reply));
};
