/**
 * The idempotent sink's reading of the error-code table (protocol/error-codes.ts), and its two retry loops: one
 * request resent after lost replies and retriable codes, and a reconnect retried while the broker is unreachable.
 */
import { BrokerError, ConnectionError, type CraterError, TimeoutError } from '../../errors.js';
import type { Session } from './session.js';
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

export interface ProducerIdentity {
  producerId: bigint;
  epoch: number;
}

export interface Current {
  session: Session;
  id: ProducerIdentity;
}

/** The pause before resending after a retriable broker error (ERR 6, ERR 20), doubling up to the maximum. */
const RETRY_PAUSE_MS = 50;
const MAX_RETRY_PAUSE_MS = 1_000;

export interface RetryHost {
  maxRetries: number;
  /** Applies the table's producer rule after a final broker error. */
  afterBrokerError(code: number): void;
  /** A transaction holds the session: a lost connection fails the request instead of resuming. */
  holdSession(): boolean;
  resume(from: Session, cause: CraterError): Promise<Current>;
}

/**
 * Runs one request, resending it after a lost reply (on the same connection while it is open, else on a new one
 * that resumed the same session) or a retriable broker error. Any other broker error is final; the table's
 * producer rule then says whether the session survives it.
 */
export async function withRetries<T>(
  current: Current,
  request: (session: Session, id: ProducerIdentity) => Promise<T>,
  host: RetryHost,
): Promise<T> {
  let { session, id } = current;
  let pause = RETRY_PAUSE_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return await request(session, id);
    } catch (error) {
      if (error instanceof BrokerError) {
        if (!resendAfterError(error.errorCode, attempt, host.maxRetries)) {
          host.afterBrokerError(error.errorCode);
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, pause));
        pause = Math.min(pause * 2, MAX_RETRY_PAUSE_MS);
        continue;
      }
      if (!isLostReply(error) || attempt >= host.maxRetries) throw error;
      if (session.conn.closed && host.holdSession()) throw error;
      if (session.conn.closed) ({ session, id } = await host.resume(session, error as CraterError));
    }
  }
}

/** Opens a new session, retrying while the broker is unreachable (a restart), with a pause from 50 ms to 1 s. */
export async function connectWithRetries(reconnect: () => Promise<Session>, attempts: number): Promise<Session> {
  let pause = 50;
  for (let attempt = 1; ; attempt++) {
    try {
      return await reconnect();
    } catch (error) {
      if (!(error instanceof ConnectionError || error instanceof TimeoutError) || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 1_000);
    }
  }
}
