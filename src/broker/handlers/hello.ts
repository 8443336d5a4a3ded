/** HELLO: exact version match, no negotiation (wire.md §2.2). Both failures close with the zero correl. */
import { DecodeError } from '../../errors.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { PROTOCOL_VERSION } from '../../protocol/limits.js';
import { decodePayload } from '../../protocol/message.js';
import { HelloRequest, WelcomeReply } from '../../protocol/messages/hello.js';
import type { BrokerCore } from '../core.js';
import { HandlerError, type RequestHandler } from '../handler.js';

export const handler: RequestHandler<BrokerCore> = ({ conn, correl, payload }) => {
  const { version } = decodeHello(payload);
  if (version !== PROTOCOL_VERSION) {
    throw new HandlerError(ErrorCode.BAD_PROTOCOL, `expected v${PROTOCOL_VERSION} got v${version}`, true);
  }
  conn.state = 'greeted';
  conn.send(WelcomeReply, correl, { version: PROTOCOL_VERSION });
};

/** A HELLO too short for its version closes the connection, unlike other frames' decode failures. */
function decodeHello(payload: Buffer): { version: number } {
  try {
    return decodePayload(HelloRequest, payload);
  } catch (err) {
    if (err instanceof DecodeError) throw new HandlerError(ErrorCode.BAD_FRAME, 'HELLO needs a u32 version', true);
    throw err;
  }
}
