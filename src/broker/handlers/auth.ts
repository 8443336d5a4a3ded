/**
 * AUTH (plain): required in open mode too. Failure and lockout close with ERR 4 and the zero correl. The handshake
 * watchdog is paused while PBKDF2 runs, so a slow hash never counts against the client.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { decodePayload } from '../../protocol/message.js';
import { AuthOkReply, AuthRequest } from '../../protocol/messages/auth.js';
import type { BrokerCore } from '../core.js';
import { HandlerError, type RequestHandler } from '../handler.js';
import type { HandshakeClock } from '../handshake-clock.js';
import { SESSION_HANDSHAKE_CLOCK } from '../server-connection.js';

export const handler: RequestHandler<BrokerCore> = async ({ broker, conn, correl, payload }) => {
  const { username, password } = decodePayload(AuthRequest, payload);
  const auth = broker.authenticator;
  if (auth.isLockedOut(conn.remoteAddress)) {
    throw new HandlerError(ErrorCode.AUTH_FAILED, 'too many failed attempts from this address; try again later', true);
  }
  const clock = conn.session.get(SESSION_HANDSHAKE_CLOCK) as HandshakeClock | undefined;
  clock?.pause();
  let ok: boolean;
  try {
    ok = await auth.verify(conn.remoteAddress, username, password);
  } finally {
    clock?.resume();
  }
  if (!ok) throw new HandlerError(ErrorCode.AUTH_FAILED, 'authentication failed', true);
  conn.state = 'authenticated';
  conn.send(AuthOkReply, correl, {});
};
