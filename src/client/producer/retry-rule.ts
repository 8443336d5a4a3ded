/**
 * What the accumulator does after a produce attempt failed, decided in one place from the error's class and, for a
 * broker error, its wire code (never from message text). When the error-code table gains a per-code retry rule,
 * `brokerRule` is the one function to point at it.
 *
 *   retry      the broker refused before appending (the whole request, or the records after an acked prefix):
 *              resending exactly what did not land is safe, within the delivery deadline
 *   fatal      the same request would be refused again (or the producer's session is gone): fail the records
 *   unknown    the reply was lost (timeout, dropped connection): the request may have been appended; resending
 *              it could duplicate, so the sink's own same-sequence resend is the only retry
 */
import { BrokerError, ConnectionError, TimeoutError } from '../../errors.js';
import { ErrorCode } from '../../protocol/error-codes.js';

export type RetryRule = 'retry' | 'fatal' | 'unknown';

/** Broker codes after which the records that did not land may be sent again. */
const RETRIABLE_CODES: ReadonlySet<number> = new Set([
  ErrorCode.RATE_LIMITED,
  ErrorCode.INTERNAL,
  ErrorCode.NOT_LEADER,
]);

export function brokerRule(errorCode: number): RetryRule {
  return RETRIABLE_CODES.has(errorCode) ? 'retry' : 'fatal';
}

export function retryRule(error: unknown): RetryRule {
  if (error instanceof BrokerError) return brokerRule(error.errorCode);
  if (error instanceof TimeoutError || error instanceof ConnectionError) return 'unknown';
  return 'fatal';
}

export const RetryBackoff = { initialMs: 100, maxMs: 1_000, jitter: 0.2 } as const;

/**
 * The pause before retry number `retry` (1-based): 100 ms doubling to 1 s, each scaled by a random factor in
 * [1 − jitter, 1 + jitter) so producers that failed together do not retry together.
 */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  const base = Math.min(RetryBackoff.maxMs, RetryBackoff.initialMs * 2 ** Math.max(0, retry - 1));
  const factor = 1 - RetryBackoff.jitter + 2 * RetryBackoff.jitter * random();
  return Math.round(base * factor);
}
