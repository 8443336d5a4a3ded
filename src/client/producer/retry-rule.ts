/**
 * What the accumulator does after a produce attempt failed, decided in one place from the error's class and, for a
 * broker error, its wire code through the error-code table's rule (errorRules in protocol/error-codes.ts; never
 * from message text).
 *
 *   retry      the broker refused before appending (the whole request, or the records after an acked prefix):
 *              resending exactly what did not land is safe, within the delivery deadline
 *   fatal      the same request would be refused again (or the producer's session is gone): fail the records
 *   unknown    the reply was lost (timeout, dropped connection): the request may have been appended; resending
 *              it could duplicate, so the sink's own same-sequence resend is the only retry
 */
import { BrokerError, ConnectionError, TimeoutError } from '../../errors.js';
import { errorRule } from '../../protocol/error-codes.js';

export type RetryRule = 'retry' | 'fatal' | 'unknown';

/** A refused request: retried only where the error-code table says the same request may simply be sent again. */
export function brokerRule(errorCode: number): RetryRule {
  return errorRule(errorCode).retriable ? 'retry' : 'fatal';
}

/**
 * The unsent tail of a partial append (a PRODUCE_BATCH ack list shorter than the batch): the broker truncated it
 * back, so none of it was written; the table's `tailRetriable` says after which codes resending it is safe (the
 * retriable ones, and a storage failure, ERR 7).
 */
export function tailRule(error: unknown): RetryRule {
  if (error instanceof BrokerError) return errorRule(error.errorCode).tailRetriable ? 'retry' : 'fatal';
  return retryRule(error);
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
