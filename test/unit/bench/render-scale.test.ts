import { describe, expect, it } from 'vitest';
import { curveValues, pointOptions, type ScalePoint } from '../../../src/bench/scale.js';
import { barChart } from '../../../src/cli/render/bar-chart.js';
import { curveChart, scaleMarkdown } from '../../../src/cli/render/bench-scale.js';

function point(value: number, rate: number, p99: number, rss: number | null): ScalePoint {
  return {
    value,
    records: 1000,
    batchSize: 1000,
    produceRecordsPerSec: rate,
    produceP99Ms: p99,
    fetchedRecords: 1000,
    fetchRecordsPerSec: rate * 2,
    fetchP99Ms: p99 / 2,
    brokerPeakRssBytes: rss,
    fsyncs: 4,
    wallMs: 100,
  };
}

describe('bench scale rendering', () => {
  it('scales each series of a bar chart to its own maximum', () => {
    const chart = barChart(
      'x',
      ['a', 'bb'],
      [
        { title: 'rate', values: [10, 5], format: String },
        { title: 'p99', values: [1, 4], format: String },
      ],
      40,
    );
    const [head, a, b] = chart.split('\n');
    expect(head).toMatch(/^x {3}rate +p99$/);
    const bars = (row: string): number[] =>
      row
        .split(/ +\d+ */)
        .slice(0, 2)
        .map((c) => (c.match(/█/g) ?? []).length);
    const [aRate, aP99] = bars(a!);
    const [bRate, bP99] = bars(b!);
    // Full blocks only (the last cell may be a partial block): within one cell of the exact ratio.
    expect(Math.abs(aRate! - 2 * bRate!)).toBeLessThanOrEqual(1);
    expect(Math.abs(bP99! - 4 * aP99!)).toBeLessThanOrEqual(1);
    expect(aRate).toBeGreaterThan(bRate!);
  });

  it('labels value-size points in bytes, leaves RSS out for an external broker, and writes a Markdown table', () => {
    const curve = { parameter: 'value-size' as const, points: [point(10, 1000, 2, null), point(65536, 100, 8, null)] };
    const chart = curveChart(curve, 80);
    expect(chart.split('\n')[0]).toMatch(/value-size +produce records\/s +p99$/);
    expect(chart).toContain('64.0 KiB');
    const md = scaleMarkdown({ kind: 'scale', broker: null, base: {} as never, curves: [curve], startup: null });
    expect(md).toContain('| value-size | 10 B | 1,000 | 1,000 | 1,000 |');
  });

  it('steps 10^7 records only when asked, and keeps each value-size point within 64 MiB of values', () => {
    expect(curveValues('records', 1e6)).toEqual([1e3, 1e4, 1e5, 1e6]);
    expect(curveValues('records', 1e7)).toEqual([1e3, 1e4, 1e5, 1e6, 1e7]);
    for (const v of curveValues('value-size', 1e6)) {
      const o = pointOptions('value-size', v);
      expect(o.records * v).toBeLessThanOrEqual(Math.max(64 * 1024 * 1024, 1000 * v));
    }
    expect(pointOptions('connections', 256)).toMatchObject({ batchSize: 1, connections: 256, records: 25_600 });
  });
});
