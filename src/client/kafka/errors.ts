/**
 * @platformatic/kafka's errors as crater's: a Kafka error code becomes a KafkaBrokerError (Kafka's number and name),
 * a network failure a ConnectionError, a timeout a TimeoutError. Classified by the library's error classes and
 * its `apiCode`/`apiId` fields, never by message text.
 */
import {
  GenericError,
  MultipleErrors,
  NetworkError,
  ProtocolError,
  TimeoutError as KafkaTimeout,
} from '@platformatic/kafka';
import { ConnectionError, CraterError, KafkaBrokerError, TimeoutError } from '../../errors.js';

/** The first Kafka protocol error inside `error` (the library nests them in MultipleErrors). */
export function protocolErrorOf(error: unknown): ProtocolError | undefined {
  if (error instanceof ProtocolError) return error;
  if (error instanceof MultipleErrors) {
    for (const inner of error.errors) {
      const found = protocolErrorOf(inner);
      if (found) return found;
    }
  }
  if (error instanceof Error && error.cause !== undefined && error.cause !== error) return protocolErrorOf(error.cause);
  return undefined;
}

function hasClass(error: unknown, cls: new (...args: never[]) => Error): boolean {
  if (error instanceof cls) return true;
  if (error instanceof MultipleErrors) return error.errors.some((e) => hasClass(e, cls));
  return false;
}

/** Kafka's error name (e.g. 'TOPIC_ALREADY_EXISTS') when `error` carries one. */
export function kafkaErrorName(error: unknown): string | undefined {
  return protocolErrorOf(error)?.apiId as string | undefined;
}

export function toCraterError(error: unknown, what: string): Error {
  if (error instanceof CraterError) return error;
  const protocol = protocolErrorOf(error);
  if (protocol) {
    const detail = (protocol.serverErrorMessage as string | null | undefined) ?? protocol.message;
    return Object.assign(
      new KafkaBrokerError(protocol.apiCode as number, protocol.apiId as string, `${what}: ${detail}`),
      { cause: error },
    );
  }
  if (hasClass(error, KafkaTimeout)) return Object.assign(new TimeoutError(`${what}: timed out`), { cause: error });
  if (hasClass(error, NetworkError))
    return new ConnectionError(`${what}: ${(error as Error).message}`, { cause: error });
  if (error instanceof GenericError || error instanceof MultipleErrors)
    return new ConnectionError(`${what}: ${error.message}`, { cause: error });
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * Runs `fn`, turning a library error into crater's. With `timeoutMs`, a call still pending then rejects with a
 * TimeoutError (the library can wait on a dead transaction coordinator far longer than its request timeout).
 */
export async function kafkaCall<T>(what: string, fn: () => Promise<T>, timeoutMs?: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    if (timeoutMs === undefined) return await fn();
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimeoutError(`${what}: no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    return await Promise.race([fn(), expired]);
  } catch (error) {
    throw toCraterError(error, what);
  } finally {
    clearTimeout(timer);
  }
}

/** Kafka errors that a new group member (which finds the coordinator anew) can get past. */
const MEMBER_ERRORS = new Set([
  'NOT_COORDINATOR',
  'COORDINATOR_NOT_AVAILABLE',
  'COORDINATOR_LOAD_IN_PROGRESS',
  'UNKNOWN_MEMBER_ID',
  'ILLEGAL_GENERATION',
  'REBALANCE_IN_PROGRESS',
]);

/** True for a crater error (from kafkaCall) that a new member may not meet: a network failure, a timeout, a moved coordinator. */
export function isRetriable(error: unknown): boolean {
  if (error instanceof ConnectionError || error instanceof TimeoutError) return true;
  const name = kafkaErrorName(error instanceof CraterError ? error.cause : error);
  return name !== undefined && MEMBER_ERRORS.has(name);
}
