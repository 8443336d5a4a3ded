/** HELLO: exact version match, no negotiation (wire.md §2.2). Both failures close with the zero correl. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { PROTOCOL_VERSION } from '../../protocol/limits.js';
import { WelcomeReply } from '../../protocol/messages/hello.js';
import type { BrokerCore } from '../core.js';
import { HandlerError, type RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = ({ conn, correl, payload }) => {
  if (payload.length < 4) throw new HandlerError(ErrorCode.BAD_FRAME, 'HELLO needs a u32 version', true);
  const version = payload.readUInt32BE(0);
  if (version !== PROTOCOL_VERSION) {
    throw new HandlerError(ErrorCode.BAD_PROTOCOL, `expected v${PROTOCOL_VERSION} got v${version}`, true);
  }
  conn.state = 'greeted';
  conn.send(WelcomeReply, correl, { version: PROTOCOL_VERSION });
};
