/**
 * FETCH: the first FETCH fixes pull mode, group and isolation (a mismatch or SUBSCRIBE on the same connection is
 * ERR 8); the named topic must exist (ERR 5) and joins the connection's subscriptions; the poll covers all of them.
 * The reply is one RECORD_BATCH (BATCHED, only when there are records) or one RECORD per record, then OK, all in
 * one write. Cursors move and offsets are committed (once per partition) only after the frames were queued; the
 * commit's fsync is not awaited, so the next FETCH is not held back by it.
 */
import { decodePayload } from '../../protocol/message.js';
import { FetchRequest } from '../../protocol/messages/fetch.js';
import { FetchFlag } from '../../protocol/opcodes.js';
import { consumerRuntimeOf } from '../consumer/index.js';
import { encodeRecordFrames } from '../consumer/record-frames.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = ({ broker, conn, correl, payload }) => {
  const req = decodePayload(FetchRequest, payload);
  const rt = consumerRuntimeOf(broker);
  const s = rt.enter(conn, 'pull', req);

  const flags = req.flags ?? 0;
  const batched = (flags & FetchFlag.BATCHED) !== 0;
  const result = rt.pollFor(conn, s, req.maxRecords);
  const frames = encodeRecordFrames(correl, result.partitions, {
    batched,
    headers: batched && (flags & FetchFlag.HEADERS) !== 0,
    withOk: true,
  });
  if (conn.closed) return;
  conn.sendRaw(frames);
  // A connection over its send budget is closed by sendRaw: those records never left, so the cursors stay.
  if (conn.closed || result.partitions.length === 0) return;
  rt.advance(req.group, result.partitions);
  void rt.commitDelivered(req.group, result.partitions);
};
