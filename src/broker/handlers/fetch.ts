/**
 * FETCH: the first FETCH fixes pull mode, group and isolation (a mismatch or SUBSCRIBE on the same connection is
 * ERR 8); the named topic must exist (ERR 5) and joins the connection's subscriptions; the poll covers all of them.
 * The reply is one RECORD_BATCH (BATCHED, only when there are records) or one RECORD per record, then OK, all in
 * one write. A FETCH behind a reply that waits on an fsync polls only once that reply is out, so its records are
 * never held in memory unaccounted and are as fresh as its place in the reply order allows. Cursors move once the
 * frames were queued; offsets are committed (once per partition) only once the reply reached the kernel, and a
 * reply dropped with its connection rewinds them instead (semantics.md §11). The commit's fsync is not awaited,
 * so the next FETCH is not held back by it.
 */
import { decodePayload } from '../../protocol/message.js';
import { type Fetch, FetchRequest } from '../../protocol/messages/fetch.js';
import { FetchFlag } from '../../protocol/opcodes.js';
import { type ConsumerService, consumerRuntimeOf } from '../consumer/index.js';
import { encodeRecordFrames } from '../consumer/record-frames.js';
import type { ConsumerSession } from '../consumer/session.js';
import { type BrokerCore, type OrderedReplies, SESSION_ORDERED_REPLIES } from '../core.js';
import type { ConnectionHandle, RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = ({ broker, conn, correl, payload }) => {
  const req = decodePayload(FetchRequest, payload);
  const rt = consumerRuntimeOf(broker);
  const s = rt.enter(conn, 'pull', req);
  const earlier = (conn.session.get(SESSION_ORDERED_REPLIES) as OrderedReplies | undefined)?.settled();
  if (earlier) return earlier.then(() => serveWithin(rt, conn, s, req, correl));
  return serveWithin(rt, conn, s, req, correl);
};

/**
 * Polls only when the reply fits beside what the connection has not sent yet: with unsent bytes past the cap less
 * one reply (and a frame of slack for a first record over the budget), it waits for them to reach the kernel, so a
 * client pipelining FETCHes of large records is slowed to its reading speed rather than closed for the cap.
 */
function serveWithin(
  rt: ConsumerService,
  conn: ConnectionHandle,
  s: ConsumerSession,
  req: Fetch,
  correl: Buffer,
): Promise<void> | undefined {
  const cap = rt.broker.config.maxPendingSendBytes;
  const pending = conn.pendingSendBytes;
  if (pending > 0 && pending + rt.replyBytes() + rt.broker.config.maxFrameSize > cap) {
    // A flush that fails means the connection closed: there is no one to answer.
    return conn.flushed().then(
      () => serve(rt, conn, s, req, correl),
      () => undefined,
    );
  }
  serve(rt, conn, s, req, correl);
  return undefined;
}

function serve(rt: ConsumerService, conn: ConnectionHandle, s: ConsumerSession, req: Fetch, correl: Buffer): void {
  if (conn.closed) return;
  const flags = req.flags ?? 0;
  const batched = (flags & FetchFlag.BATCHED) !== 0;
  const result = rt.pollFor(conn, s, req.maxRecords);
  const frames = encodeRecordFrames(correl, result.partitions, {
    batched,
    headers: batched && (flags & FetchFlag.HEADERS) !== 0,
    withOk: true,
    alloc: rt.replyPool.take,
  });
  conn.sendRaw(frames);
  // A connection over its send budget is closed by sendRaw: those records never left, so the cursors stay.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- sendRaw closes a connection over its send budget; TypeScript keeps the narrowing across calls (TypeScript#9998)
  if (conn.closed || result.partitions.length === 0) return;
  const parts = result.partitions;
  rt.advance(req.group, parts);
  const delivered = conn.flushed();
  // The socket took every byte of the reply: its buffer can carry the next one (reply-pool.ts).
  delivered.then(
    () => rt.replyPool.give(frames),
    () => undefined,
  );
  rt.commitOnDelivery(req.group, parts, delivered);
}
