/** Delays between retries of a batch: fixed, or exponential with full jitter (AWS's "full jitter" scheme). */
import { UsageError } from '../../../errors.js';

export type Backoff =
  | { type: 'fixed'; delayMs: number }
  | { type: 'exponential'; initialMs: number; maxMs: number; multiplier?: number; jitter?: boolean };

export const DEFAULT_BACKOFF: Backoff = { type: 'exponential', initialMs: 200, maxMs: 5_000, jitter: true };

export function validateBackoff(b: Backoff): void {
  const bad = (what: string, v: number): never => {
    throw new UsageError(`backoff ${what} must be a finite number >= 0, got ${v}`);
  };
  if (b.type === 'fixed') {
    if (!Number.isFinite(b.delayMs) || b.delayMs < 0) bad('delayMs', b.delayMs);
    return;
  }
  if (!Number.isFinite(b.initialMs) || b.initialMs < 0) bad('initialMs', b.initialMs);
  if (!Number.isFinite(b.maxMs) || b.maxMs < b.initialMs)
    throw new UsageError(`backoff maxMs must be >= initialMs (${b.initialMs}), got ${b.maxMs}`);
  if (b.multiplier !== undefined && !(b.multiplier >= 1))
    throw new UsageError(`backoff multiplier must be >= 1, got ${b.multiplier}`);
}

/** The wait before retry number `retry` (1-based). Exponential: min(max, initial × m^(retry-1)), jittered in [0, that]. */
export function backoffDelay(b: Backoff, retry: number, random: () => number): number {
  if (b.type === 'fixed') return b.delayMs;
  const ceiling = Math.min(b.maxMs, b.initialMs * (b.multiplier ?? 2) ** Math.max(0, retry - 1));
  return b.jitter === false ? ceiling : Math.floor(random() * ceiling);
}
