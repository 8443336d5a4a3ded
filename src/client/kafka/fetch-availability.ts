/**
 * The fetch loop's view of partitions it could not fetch from (no leader in the metadata, a leader that is gone or
 * no longer leads, a fetch that failed on the network): since when, and the last cause. The loop skips them for the
 * round, asks for fresh metadata after a backoff and keeps fetching the others; only a partition that stays
 * unavailable past the deadline fails the loop. A partition leaves the set when a fetch of it is answered.
 */
import {
  MultipleErrors,
  NetworkError,
  ProtocolError,
  ResponseError,
  TimeoutError as KafkaTimeout,
} from '@platformatic/kafka';

export const FIRST_BACKOFF_MS = 100;
export const MAX_BACKOFF_MS = 2_000;

interface Outage {
  since: number;
  cause: string;
}

export class Unavailable {
  readonly #outages = new Map<string, Outage>();
  #backoff = FIRST_BACKOFF_MS;

  constructor(private readonly now: () => number) {}

  get size(): number {
    return this.#outages.size;
  }

  /** `partition` could not be fetched now; the first time counts for the deadline. */
  mark(partition: string, cause: string): void {
    const outage = this.#outages.get(partition);
    if (outage) outage.cause = cause;
    else this.#outages.set(partition, { since: this.now(), cause });
  }

  /** `partition` was answered. */
  clear(partition: string): void {
    this.#outages.delete(partition);
    if (this.#outages.size === 0) this.#backoff = FIRST_BACKOFF_MS;
  }

  clearAll(): void {
    this.#outages.clear();
    this.#backoff = FIRST_BACKOFF_MS;
  }

  /** The wait before the next metadata refresh: doubling up to MAX_BACKOFF_MS while partitions stay unavailable. */
  nextBackoff(): number {
    const wait = this.#backoff;
    this.#backoff = Math.min(this.#backoff * 2, MAX_BACKOFF_MS);
    return wait;
  }

  /** The partition unavailable for longer than `deadlineMs`, if any, with how long and why. */
  expired(deadlineMs: number): { partition: string; forMs: number; cause: string } | undefined {
    const now = this.now();
    for (const [partition, { since, cause }] of this.#outages) {
      if (now - since >= deadlineMs) return { partition, forMs: now - since, cause };
    }
    return undefined;
  }
}

/**
 * True for a fetch failure that fresh metadata or a moment can cure: a network failure or timeout, a Kafka error
 * the library marks retriable or as stale metadata (NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE, ...), or the
 * library's retries of those. Anything else (a bad request, an authorisation error) is not, and fails the loop.
 */
export function isTransientFetchError(error: unknown): boolean {
  if (error instanceof ResponseError || error instanceof MultipleErrors) {
    return error.errors.length > 0 && error.errors.every((e) => isTransientFetchError(e));
  }
  if (error instanceof NetworkError || error instanceof KafkaTimeout) return true;
  return error instanceof ProtocolError && (error.canRetry === true || error.hasStaleMetadata === true);
}
