import { describe, expect, it } from 'vitest';
import { LatencyRecorder } from '../../../src/bench/latency.js';
import {
  type ProduceTiming,
  type RoundShare,
  interleavedRounds,
  mergeTimings,
  scalingRatio,
  splitShares,
} from '../../../src/bench/partition-scaling.js';

function timing(topic: string, records: number, ms: number, fsyncMs: { p50: number; p99: number }): ProduceTiming {
  return {
    topic,
    sent: { records, batches: 1 },
    ms,
    latency: new LatencyRecorder(),
    peak: records * 10,
    fsyncs: 2,
    fsyncWindow: {
      count: 2,
      totalMs: 3,
      ms: { ...fsyncMs, p90: fsyncMs.p99, p999: fsyncMs.p99, max: fsyncMs.p99, count: 2 },
    },
    brokerCpuMs: 1,
    clientCpuMs: 2,
  };
}

describe('partition scaling rounds', () => {
  it('splits a total into shares that add up to it', () => {
    expect(splitShares(10, 3)).toEqual([4, 3, 3]);
    expect(splitShares(2, 5)).toEqual([1, 1]);
    expect(splitShares(100_000, 5)).toEqual([20_000, 20_000, 20_000, 20_000, 20_000]);
  });

  it('alternates the order of the sides (ABBA) and reports the median of the rounds ratios', async () => {
    const order: string[] = [];
    // Round k of the main side takes 10 ms except round 1 (a stall: 100 ms); the vs side always 20 ms.
    let mainRound = 0;
    const measure = async (topic: string, share: RoundShare): Promise<ProduceTiming> => {
      order.push(topic);
      const ms = topic === 'a' ? (mainRound++ === 1 ? 100 : 10) : 20;
      return timing(topic, share.records!, ms, { p50: 1, p99: 2 });
    };
    const rounds = await interleavedRounds(measure, { main: 'a', vs: 'b' }, { records: 50, durationMs: null }, 4);
    expect(order).toEqual(['a', 'b', 'b', 'a', 'a', 'b', 'b', 'a']);
    expect(rounds.ratios).toEqual([2, 0.2, 2, 2]);
    // The stalled round does not move the median as it moves the aggregate (50/130 over 50/80).
    expect(scalingRatio(rounds.ratios)).toBe(2);
    expect(rounds.main.sent.records).toBe(50);
    expect(rounds.main.ms).toBe(130);
  });

  it('merges rounds: sums, the highest peak and tail, the median p50', () => {
    const merged = mergeTimings(
      [
        timing('a', 10, 5, { p50: 1, p99: 9 }),
        timing('a', 20, 5, { p50: 3, p99: 4 }),
        timing('a', 30, 5, { p50: 2, p99: 5 }),
      ],
      new LatencyRecorder(),
    );
    expect(merged).toMatchObject({ sent: { records: 60, batches: 3 }, ms: 15, peak: 300, fsyncs: 6, brokerCpuMs: 3 });
    expect(merged.clientCpuMs).toBe(6);
    expect(merged.fsyncWindow).toMatchObject({ count: 6, totalMs: 9, ms: { p50: 2, p99: 9 } });
  });
});
