/**
 * `crater bench producer` through the built binary: the prediction next to the measurement on stdout, a sweep's
 * terminal chart, --json alone on stdout, and a malformed --sweep as a usage error. Short runs; no timing assertions.
 */
import { describe, expect, it } from 'vitest';
import { crater } from '../helpers/cli.js';

const short = ['--duration', '300ms', '--rate', '200kB'];

describe('crater bench producer', () => {
  it("prints the seed's prediction next to what was measured", async () => {
    const r = await crater(['bench', 'producer', ...short, '--producers', '2', '--batch-bytes', '16KiB']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /prediction \(2 accumulators = producers × topics; the MoonMQ protocol partitions on the broker\)/,
    );
    expect(r.stdout).toMatch(
      /r = 100,000 B\/s per accumulator, fill time B\/r = .+, arrivals during linger r×L = 500 B \(L = 5 ms\)/,
    );
    expect(r.stdout).toMatch(/measured: mean batch [\d,]+ B of key \+ value \([\d.]+x the prediction\)/);
    // The model check --json has as `model`: keptUp and the effective prediction.
    expect(r.stdout).toMatch(/model: offered 0\.20 MB\/s, achieved [\d.]+ MB\/s; keptUp (true|false): /);
    expect(r.stdout).toMatch(
      /effective \(the run's own rate, opening burst and linger .+\): r = [\d,]+ B\/s per accumulator, mean batch ≈ [\d,]+ B \([\d.]+ records\); measured [\d.]+x that/,
    );
  }, 60_000);

  it('--sweep linger=0,20 draws one chart row per value', async () => {
    const r = await crater(['bench', 'producer', ...short, '--sweep', 'linger=0,20']);
    expect(r.code, r.stderr).toBe(0);
    const chart = r.stdout.split('\n').filter((l) => /^(linger|0 ms|20 ms)\s/.test(l));
    expect(chart.map((l) => l.split(/\s{2,}/)[0])).toEqual(['linger', '0 ms', '20 ms']);
    expect(chart[1]).toMatch(/█.* [\d,]+ /);
  }, 60_000);

  it('--json prints the report alone on stdout', async () => {
    const r = await crater(['bench', 'producer', ...short, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { kind: string; points: { prediction: { accumulators: number } }[] };
    expect(report.kind).toBe('producer');
    expect(report.points[0]!.prediction.accumulators).toBe(1);
  }, 60_000);

  it('refuses a malformed --sweep as a usage error', async () => {
    const r = await crater(['bench', 'producer', '--sweep', 'acks=1,2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/invalid --sweep "acks=1,2"/);
  }, 60_000);
});
