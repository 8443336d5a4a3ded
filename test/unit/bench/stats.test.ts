/** The report arithmetic: spreads over repeats, nearest-rank percentiles, rates, and the HdrHistogram wrapper. */
import { describe, expect, it } from 'vitest';
import { LatencyRecorder } from '../../../src/bench/latency.js';
import { percentileOfSorted, percentiles, perSecond, spread } from '../../../src/bench/stats.js';
import { rates } from '../../../src/bench/batch-vs-single.js';

describe('spread', () => {
  it('takes the middle value of an odd count, whatever the input order', () => {
    expect(spread([9, 1, 5, 3, 7])).toEqual({ median: 5, min: 1, max: 9 });
  });

  it('averages the two middle values of an even count', () => {
    expect(spread([4, 1, 3, 2])).toEqual({ median: 2.5, min: 1, max: 4 });
  });

  it('is the value itself for one repeat, and leaves the input unsorted', () => {
    const input = [3, 1, 2];
    spread(input);
    expect(input).toEqual([3, 1, 2]);
    expect(spread([7])).toEqual({ median: 7, min: 7, max: 7 });
  });

  it('refuses an empty list instead of reporting NaN', () => {
    expect(() => spread([])).toThrow(RangeError);
  });
});

describe('percentiles', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1);

  it('uses the nearest rank: the smallest observed value with q of the samples at or below it', () => {
    expect(percentileOfSorted(hundred, 0.5)).toBe(50);
    expect(percentileOfSorted(hundred, 0.99)).toBe(99);
    expect(percentileOfSorted(hundred, 0.999)).toBe(100);
    expect(percentileOfSorted(hundred, 0)).toBe(1);
    expect(percentileOfSorted(hundred, 1)).toBe(100);
    expect(percentileOfSorted([1, 2, 3, 4], 0.5)).toBe(2);
  });

  it('sorts a copy and reports count and max', () => {
    const shuffled = [...hundred].reverse();
    expect(percentiles(shuffled)).toEqual({ p50: 50, p90: 90, p99: 99, p999: 100, max: 100, count: 100 });
    expect(shuffled[0]).toBe(100);
  });

  it('rejects a quantile outside 0..1 and an empty sample', () => {
    expect(() => percentileOfSorted(hundred, 1.5)).toThrow(RangeError);
    expect(() => percentiles([])).toThrow(RangeError);
  });
});

describe('rates', () => {
  it('per second from milliseconds, 0 rather than Infinity for a zero interval', () => {
    expect(perSecond(400, 2)).toBe(200_000);
    expect(perSecond(5, 0)).toBe(0);
  });

  it('turns wall times into a spread of records/s whose min comes from the slowest repeat', () => {
    expect(rates(1000, [10, 5, 20])).toEqual({ median: 100_000, min: 50_000, max: 200_000 });
  });
});

describe('LatencyRecorder', () => {
  it('reports HdrHistogram percentiles in ms within 0.1% and never above the max', () => {
    const r = new LatencyRecorder();
    for (let i = 1; i <= 1000; i++) r.record(i / 10);
    const p = r.percentiles();
    expect(p.count).toBe(1000);
    expect(p.p50).toBeCloseTo(50, 1);
    expect(p.p99).toBeCloseTo(99, 1);
    expect(p.max).toBeCloseTo(100, 1);
    expect(p.p999).toBeLessThanOrEqual(p.max);
  });

  it('clamps sub-microsecond values to 1 µs and reports zeros when empty', () => {
    const empty = new LatencyRecorder();
    expect(empty.percentiles()).toEqual({ p50: 0, p90: 0, p99: 0, p999: 0, max: 0, count: 0 });
    const r = new LatencyRecorder();
    r.record(0);
    expect(r.percentiles().max).toBe(0.001);
  });
});
