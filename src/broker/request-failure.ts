/**
 * What a connection answers when a request's handler failed: a HandlerError carries its own code (and may ask for
 * the connection to close), a DecodeError is ERR_BAD_FRAME, anything else is ERR_INTERNAL with a message stripped
 * of server paths, and is logged.
 */
import { DecodeError } from '../errors.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { HandlerError } from './handler.js';
import { publicErrorMessage } from './public-message.js';

export interface FailureReply {
  code: number;
  message: string;
  /** Send the ERROR with the zero correl and close (wire.md §1), rather than answer the request. */
  close: boolean;
  /** For the log: the unexpected failure's own message (undefined for the expected kinds). */
  logged?: string;
}

export function failureReply(err: unknown, dataDir: string): FailureReply {
  if (err instanceof HandlerError) return { code: err.code, message: err.message, close: err.close };
  if (err instanceof DecodeError) return { code: ErrorCode.BAD_FRAME, message: err.message, close: false };
  return {
    code: ErrorCode.INTERNAL,
    message: publicErrorMessage(err, dataDir),
    close: false,
    logged: err instanceof Error ? err.message : String(err),
  };
}
