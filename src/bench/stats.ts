/**
 * The arithmetic every bench report shares: median/min/max over repeats, percentiles over samples (nearest rank),
 * rates. Pure functions, so the report's numbers can be checked without a broker.
 */

/** A figure measured once per repeat: the median is the headline, min and max show the spread. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

/** Latency percentiles in milliseconds. */
export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  count: number;
}

/** Median of an even count is the mean of the two middle values. Throws on an empty list: a report needs data. */
export function spread(values: readonly number[]): Spread {
  if (values.length === 0) throw new RangeError('spread of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

/**
 * Nearest-rank percentile of an ascending list: the smallest value with at least q of the samples at or below it.
 * It is always a value that was observed, which is what HdrHistogram reports too.
 */
export function percentileOfSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new RangeError('percentile of no values');
  if (!(q >= 0 && q <= 1)) throw new RangeError(`percentile ${q} is outside 0..1`);
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1]!;
}

export function percentiles(samples: readonly number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    p50: percentileOfSorted(sorted, 0.5),
    p90: percentileOfSorted(sorted, 0.9),
    p99: percentileOfSorted(sorted, 0.99),
    p999: percentileOfSorted(sorted, 0.999),
    max: sorted[sorted.length - 1]!,
    count: sorted.length,
  };
}

/** Records (or bytes) per second; 0 for a zero-length interval rather than Infinity, which JSON cannot carry. */
export function perSecond(count: number, ms: number): number {
  return ms > 0 ? (count * 1000) / ms : 0;
}

export const MB = 1_000_000;
