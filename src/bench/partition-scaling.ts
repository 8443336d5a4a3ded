/**
 * `bench throughput --vs-partitions N`: the main produce phase and the one into N partitions, run as interleaved
 * rounds rather than one after the other. A load change, a disk stall or the writeback of the previous phase's dirty
 * pages then hits both sides alike, and the ratio is the median of the rounds' ratios, so one bad round does not move
 * it (run back to back, the 64-over-4 ratio ranged 0.42-0.53 on a loaded machine). The order alternates (ABBA...),
 * so neither side always runs just after the other's writes.
 */
import { LatencyRecorder } from './latency.js';
import { spread } from './stats.js';
import type { FsyncWindow } from './fsync-timer.js';
import type { PhaseFigures, PhaseTiming } from './throughput-figures.js';

/** Rounds of each side (each gets 1/ROUNDS of the records or of the duration). */
export const SCALING_ROUNDS = 5;

export type ProduceTiming = PhaseTiming & { topic: string; sent: { records: number; batches: number } };

/** What one round of one side produces: a share of the records, or of the duration. */
export interface RoundShare {
  records: number | null;
  durationMs: number | null;
}

/** One timed round into `topic`, latencies recorded into `latency`. */
export type MeasureRound = (topic: string, share: RoundShare, latency: LatencyRecorder) => Promise<ProduceTiming>;

export interface ScalingRounds {
  main: ProduceTiming;
  vs: ProduceTiming;
  /** main records/s ÷ vs records/s of each round, in round order. */
  ratios: number[];
  /** Partitions of the vs side's topic. */
  partitions: number;
}

/** `total` split into `rounds` integer shares that add up to it (the first ones one larger where it does not divide). */
export function splitShares(total: number, rounds: number): number[] {
  const n = Math.max(1, Math.min(rounds, total));
  const base = Math.floor(total / n);
  return Array.from({ length: n }, (_, i) => base + (i < total - base * n ? 1 : 0));
}

/** The rounds, interleaved ABBA, into the two topics; each side's rounds merged into one timing. */
export async function interleavedRounds(
  measure: MeasureRound,
  topics: { main: string; vs: string },
  total: RoundShare,
  rounds = SCALING_ROUNDS,
): Promise<Omit<ScalingRounds, 'partitions'>> {
  const shares: RoundShare[] =
    total.records !== null
      ? splitShares(total.records, rounds).map((records) => ({ records, durationMs: null }))
      : splitShares(total.durationMs!, rounds).map((durationMs) => ({ records: null, durationMs }));
  const latency = { main: new LatencyRecorder(), vs: new LatencyRecorder() };
  const main: ProduceTiming[] = [];
  const vs: ProduceTiming[] = [];
  for (const [i, share] of shares.entries()) {
    const runMain = async () => main.push(await measure(topics.main, share, latency.main));
    const runVs = async () => vs.push(await measure(topics.vs, share, latency.vs));
    if (i % 2 === 0) {
      await runMain();
      await runVs();
    } else {
      await runVs();
      await runMain();
    }
  }
  const ratios = main.map((m, i) => rate(m) / rate(vs[i]!));
  return { main: mergeTimings(main, latency.main), vs: mergeTimings(vs, latency.vs), ratios };
}

/** The ratio the report gives: the median of the rounds'. */
export function scalingRatio(ratios: readonly number[]): number {
  return ratios.length === 0 ? 0 : spread(ratios).median;
}

/** One round of a share into `topic`, which has `partitions` partitions. */
export type ProduceInto = (
  topic: string,
  partitions: number,
  share: RoundShare,
  latency: LatencyRecorder,
) => Promise<ProduceTiming>;

/** Creates a topic for each side (`main` and `vs` partitions), then runs the interleaved rounds into them. */
export async function measureScaling(
  createTopic: (partitions: number) => Promise<string>,
  produce: ProduceInto,
  [main, vs]: [number, number],
  total: RoundShare,
): Promise<ScalingRounds> {
  const topics = { main: await createTopic(main), vs: await createTopic(vs) };
  const partitionsOf = (topic: string) => (topic === topics.main ? main : vs);
  const share = { records: total.records, durationMs: total.durationMs };
  const rounds = await interleavedRounds((t, s, latency) => produce(t, partitionsOf(t), s, latency), topics, share);
  return { ...rounds, partitions: vs };
}

/** The report's partitionScaling: the vs side's figures, the median ratio and each round's. */
export function scalingFigures(vs: PhaseFigures, rounds: ScalingRounds) {
  return { partitions: rounds.partitions, produce: vs, ratio: scalingRatio(rounds.ratios), rounds: rounds.ratios };
}

function rate(t: ProduceTiming): number {
  return t.ms > 0 ? t.sent.records / t.ms : 0;
}

const sum = (values: readonly (number | null)[]): number | null =>
  values.some((v) => v === null) ? null : values.reduce<number>((a, v) => a + v!, 0);

/**
 * One side's rounds as one phase: times, records, fsyncs and CPU summed, the peak RSS the highest; of the fsync
 * timings the count and total are summed, p50 is the median of the rounds' p50s and p99 (and above) the highest.
 */
export function mergeTimings(rounds: readonly ProduceTiming[], latency: LatencyRecorder): ProduceTiming {
  const first = rounds[0]!;
  const peaks = rounds.map((r) => r.peak);
  return {
    topic: first.topic,
    sent: {
      records: rounds.reduce((a, r) => a + r.sent.records, 0),
      batches: rounds.reduce((a, r) => a + r.sent.batches, 0),
    },
    ms: rounds.reduce((a, r) => a + r.ms, 0),
    latency,
    peak: peaks.some((p) => p === null) ? null : Math.max(...(peaks as number[])),
    fsyncs: sum(rounds.map((r) => r.fsyncs)),
    fsyncWindow: mergeWindows(rounds.map((r) => r.fsyncWindow)),
    brokerCpuMs: sum(rounds.map((r) => r.brokerCpuMs)),
    clientCpuMs: rounds.reduce((a, r) => a + r.clientCpuMs, 0),
  };
}

function mergeWindows(windows: readonly (FsyncWindow | null)[]): FsyncWindow | null {
  const present = windows.filter((w): w is FsyncWindow => w !== null);
  if (present.length === 0) return null;
  const highest = (pick: (w: FsyncWindow) => number) => Math.max(...present.map(pick));
  return {
    count: present.reduce((a, w) => a + w.count, 0),
    totalMs: present.reduce((a, w) => a + w.totalMs, 0),
    ms: {
      p50: spread(present.map((w) => w.ms.p50)).median,
      p90: highest((w) => w.ms.p90),
      p99: highest((w) => w.ms.p99),
      p999: highest((w) => w.ms.p999),
      max: highest((w) => w.ms.max),
      count: present.reduce((a, w) => a + w.ms.count, 0),
    },
  };
}
