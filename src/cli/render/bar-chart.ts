/**
 * The terminal bar chart of the bench sweeps (`bench producer --sweep`, `bench scale`): one row per swept value,
 * one column of bars per series, each scaled to its own maximum, with the formatted figure after each bar. Unicode
 * eighth blocks, so it also reads in a Markdown code block.
 */

export interface BarSeries {
  title: string;
  values: readonly number[];
  format: (v: number) => string;
}

export function bar(value: number, max: number, width: number): string {
  const cells = max <= 0 ? 0 : (value / max) * width;
  const full = Math.floor(cells);
  const part = ' ▏▎▍▌▋▊▉'[Math.round((cells - full) * 8)] ?? '';
  return ('█'.repeat(full) + (full < width ? part : '')).trimEnd();
}

/** `labels[i]` heads row i; the series share the width left over by the labels and figures within `columns`. */
export function barChart(
  heading: string,
  labels: readonly string[],
  series: readonly BarSeries[],
  columns = 80,
): string {
  const lw = Math.max(heading.length, ...labels.map((l) => l.length));
  const texts = series.map((s) => s.values.map(s.format));
  const widths = texts.map((t) => Math.max(...t.map((x) => x.length)));
  const spare = columns - lw - widths.reduce((a, b) => a + b, 0) - series.length * 3 - 2;
  const barWidth = Math.max(4, Math.floor(spare / Math.max(1, series.length)));
  const maxes = series.map((s) => Math.max(...s.values));
  const head = [heading.padEnd(lw), ...series.map((s, j) => s.title.padEnd(barWidth + widths[j]! + 1))];
  const rows = labels.map((label, i) => {
    const cells = series.map((s, j) => {
      const b = bar(s.values[i]!, maxes[j]!, barWidth).padEnd(barWidth);
      return `${b} ${texts[j]![i]!.padStart(widths[j]!)}`;
    });
    return [label.padEnd(lw), ...cells].join('  ');
  });
  return [head.join('  ').trimEnd(), ...rows].join('\n');
}
