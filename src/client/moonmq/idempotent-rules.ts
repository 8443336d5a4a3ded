/** The idempotent sink's reading of the error-code table (protocol/error-codes.ts), as two small functions. */
import { ConnectionError, TimeoutError } from '../../errors.js';
import { errorRule } from '../../protocol/error-codes.js';

/**
 * What the producer's session does after the broker answered `code` (from the table only): go on, start a new one
 * before the next request, or, inside an open transaction, start one once the transaction has ended.
 */
export function sessionAfterError(
  code: number,
  inTransaction: boolean,
): 'keep' | 'new-session' | 'new-session-after-transaction' {
  if (errorRule(code).producer !== 'new-session') return 'keep';
  return inTransaction ? 'new-session-after-transaction' : 'new-session';
}

/** Whether the request that got `code` is resent (same sequence) on attempt `attempt` of at most `maxRetries`. */
export function resendAfterError(code: number, attempt: number, maxRetries: number): boolean {
  return errorRule(code).retriable && attempt < maxRetries;
}

export function isLostReply(error: unknown): boolean {
  return error instanceof TimeoutError || error instanceof ConnectionError;
}
