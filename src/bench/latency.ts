/**
 * Latency recording in an HdrHistogram (the pure-JS Int32 implementation: no wasm to load), in microseconds with
 * three significant digits, reported in milliseconds.
 */
import { build } from 'hdr-histogram-js';
import type { Percentiles } from './stats.js';

export class LatencyRecorder {
  private readonly histogram = build({
    bitBucketSize: 32,
    useWebAssembly: false,
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 3,
  });

  /** Records one latency in milliseconds (clamped to at least 1 µs). */
  record(ms: number): void {
    this.histogram.recordValue(Math.max(1, Math.round(ms * 1000)));
  }

  get count(): number {
    return this.histogram.totalCount;
  }

  percentiles(): Percentiles {
    const h = this.histogram;
    const max = h.totalCount === 0 ? 0 : h.maxValue / 1000;
    // A percentile is the top of its bucket, which can sit a few µs above the largest value recorded.
    const at = (p: number): number => (h.totalCount === 0 ? 0 : Math.min(max, h.getValueAtPercentile(p) / 1000));
    return { p50: at(50), p90: at(90), p99: at(99), p999: at(99.9), max, count: h.totalCount };
  }
}
