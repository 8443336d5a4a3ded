/**
 * The time source of a producer's accumulator: linger, delivery deadlines, retry backoff and buffer waits all read
 * it, so a test can drive them by moving a manual clock instead of sleeping.
 */
export interface ProducerClock {
  /** Milliseconds, monotonic. */
  now(): number;
  /** Calls `fn` once after `ms`; the handle goes to clearTimer. */
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

export const systemClock: ProducerClock = {
  now: () => performance.now(),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
