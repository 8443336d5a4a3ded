/**
 * `bench producer`, the seed's whiteboard made real: P producers (one connection each) send keyed records through
 * their accumulators to one topic of N partitions, at a total rate spread evenly over them or unthrottled. The
 * report puts the seed's prediction (producer-model.ts) next to what the producers' metrics measured: batch size,
 * record queue time, requests/s, records/s. Unthrottled, it also measures hand-made batches (producer-baseline.ts)
 * in the same run, so the accumulator's cost shows as one ratio. A sweep repeats the measurement for several linger
 * or batch-bytes values on one broker. With `stallAfterMs` the embedded broker is frozen mid-run (SIGSTOP), and the
 * report shows this process's RSS and how late the last send settled against its deadline.
 * Returns a report; never prints.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Backend as Client } from '../client/backend.js';
import type { Producer } from '../client/producer/producer.js';
import { recordCharge } from '../client/producer/accumulator.js';
import { batchOverhead } from '../client/moonmq/split-batch.js';
import { DEFAULT_MAX_FRAME_SIZE } from '../protocol/limits.js';
import { UsageError } from '../errors.js';
import { type BaselineFigures, handBatches } from './producer-baseline.js';
import { drivePaced, driveProducer, RssSampler } from './producer-load.js';
import { type ModelInput, type Prediction, predict } from './producer-model.js';
import { type Measured, type ModelCheck, checkModel, combine } from './producer-figures.js';

export type { Measured, ModelCheck } from './producer-figures.js';
import {
  type BenchTarget,
  type BrokerInfo,
  KEY_BYTES,
  type TargetOptions,
  benchRecords,
  benchTopicName,
  openTarget,
} from './target.js';

export interface ProducerBenchOptions extends TargetOptions {
  producers?: number;
  partitions?: number;
  /** Total bytes/s of key + value over all producers; absent: unthrottled. */
  rateBytesPerSec?: number | undefined;
  batchBytes?: number | undefined;
  lingerMs?: number;
  durationMs?: number;
  valueSize?: number;
  bufferBytes?: number | undefined;
  deliveryTimeoutMs?: number | undefined;
  requestTimeoutMs?: number | undefined;
  /** Unthrottled runs measure hand-made batches too unless this is false. */
  baseline?: boolean;
  /** Freeze the embedded broker this long after the measured run started. */
  stallAfterMs?: number | undefined;
  onProgress?: (step: string) => void;
}

export type SweepParameter = 'linger' | 'batch-bytes';

export interface ProducerPoint {
  lingerMs: number;
  batchBytes: number;
  /** Null without a rate: the model needs r. */
  prediction: Prediction | null;
  measured: Measured;
  /** measured.meanBatchBytes / prediction.meanBatchBytes. */
  batchRatio: number | null;
  /** Whether the run met the model's assumptions, and the model with the run's own arrivals (producer-figures.ts). */
  model: ModelCheck | null;
}

export interface StallFigures {
  stalledAfterMs: number;
  rssBaselineBytes: number;
  rssPeakBytes: number;
  bufferBytes: number;
  /** bufferBytes + 64 MiB, the bound the peak growth should stay under. */
  rssGrowthLimitBytes: number;
  deliveryTimeoutMs: number;
  maxSettleMs: number;
}

export interface ProducerBenchReport {
  kind: 'producer';
  broker: BrokerInfo;
  params: {
    producers: number;
    partitions: number;
    topics: number;
    rateBytesPerSec: number | null;
    durationMs: number;
    valueSize: number;
    keySize: number;
    bufferBytes: number;
    sweep: { parameter: SweepParameter; values: number[] } | null;
  };
  points: ProducerPoint[];
  baseline: (BaselineFigures & { ratio: number }) | null;
  stall: StallFigures | null;
}

export const ProducerBenchDefaults = {
  producers: 1,
  partitions: 4,
  lingerMs: 5,
  durationMs: 5_000,
  valueSize: 100,
  bufferBytes: 32 * 1_048_576,
} as const;
const MIB_64 = 64 * 1_048_576;

function positiveInt(name: string, v: number, min = 1, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(v) || v < min || v > max)
    throw new UsageError(`${name} must be an integer ${min}..${max}, got ${v}`);
  return v;
}

interface Resolved {
  producers: number;
  partitions: number;
  rate: number | undefined;
  durationMs: number;
  valueSize: number;
  bufferBytes: number;
}

function resolve(options: ProducerBenchOptions): Resolved {
  const rate = options.rateBytesPerSec;
  if (rate !== undefined && !(rate > 0)) throw new UsageError(`rate must be positive, got ${rate}`);
  return {
    producers: positiveInt('producers', options.producers ?? ProducerBenchDefaults.producers, 1, 256),
    partitions: positiveInt('partitions', options.partitions ?? ProducerBenchDefaults.partitions, 1, 1_024),
    rate,
    durationMs: positiveInt('duration (ms)', options.durationMs ?? ProducerBenchDefaults.durationMs),
    valueSize: positiveInt('value size', options.valueSize ?? ProducerBenchDefaults.valueSize, 1, 60_000),
    bufferBytes: options.bufferBytes ?? ProducerBenchDefaults.bufferBytes,
  };
}

type Sweep = { parameter: SweepParameter; values: readonly number[] };
type Records = Parameters<typeof handBatches>[2];

/** One measurement, or one per value of `sweep`, on one broker. */
export async function runProducerBench(
  options: ProducerBenchOptions = {},
  sweep?: Sweep,
): Promise<ProducerBenchReport> {
  const r = resolve(options);
  if (options.stallAfterMs !== undefined && options.broker !== undefined)
    throw new UsageError('--stall-after freezes the embedded broker; it cannot be combined with --broker');
  if (options.stallAfterMs !== undefined && sweep)
    throw new UsageError('--stall-after measures one run; it cannot be combined with --sweep');
  const progress = options.onProgress ?? (() => undefined);
  progress(options.broker ? `connecting to ${options.broker}` : 'starting the embedded broker');
  const target = await openTarget(options);
  try {
    const records = benchRecords({ count: Math.max(1_000, r.partitions * 64), valueSize: r.valueSize });
    const base = {
      lingerMs: options.lingerMs ?? ProducerBenchDefaults.lingerMs,
      batchBytes: options.batchBytes ?? DEFAULT_MAX_FRAME_SIZE,
    };
    const unthrottled = r.rate === undefined && !sweep && options.stallAfterMs === undefined;
    const baseline = unthrottled ? await warmUpAndBaseline(target, r, options, records, base) : null;
    const { points, stall } = await measurePoints(target, r, options, records, base, sweep);
    if (baseline) baseline.ratio = points[0]!.measured.recordsPerSec / baseline.recordsPerSec;
    return { kind: 'producer', broker: target.info, params: paramsOf(r, sweep), points, baseline, stall };
  } finally {
    await target.close();
  }
}

/** An unthrottled run warms up first and measures hand-made batches (unless told not to) before the accumulator. */
async function warmUpAndBaseline(
  target: BenchTarget,
  r: Resolved,
  options: ProducerBenchOptions,
  records: Records,
  base: { lingerMs: number; batchBytes: number },
): Promise<ProducerBenchReport['baseline']> {
  const progress = options.onProgress ?? (() => undefined);
  progress('warming up');
  await measurePoint(target, r, options, records, { ...base, durationMs: Math.min(1_000, r.durationMs) });
  if (options.baseline === false) return null;
  progress('hand-made batches');
  return { ...(await measureBaseline(target, r, records)), ratio: 0 };
}

/** One point, or one per sweep value (the swept parameter replaces the base value). */
async function measurePoints(
  target: BenchTarget,
  r: Resolved,
  options: ProducerBenchOptions,
  records: Records,
  base: { lingerMs: number; batchBytes: number },
  sweep: Sweep | undefined,
): Promise<{ points: ProducerPoint[]; stall: StallFigures | null }> {
  const progress = options.onProgress ?? (() => undefined);
  const specs = sweep
    ? sweep.values.map((v) => (sweep.parameter === 'linger' ? { ...base, lingerMs: v } : { ...base, batchBytes: v }))
    : [base];
  const points: ProducerPoint[] = [];
  let stall: StallFigures | null = null;
  for (const spec of specs) {
    progress(`producing for ${r.durationMs} ms (linger ${spec.lingerMs} ms, batch ${spec.batchBytes} bytes)`);
    const result = await measurePoint(target, r, options, records, { ...spec, durationMs: r.durationMs });
    points.push(result.point);
    stall = result.stall;
  }
  return { points, stall };
}

function paramsOf(r: Resolved, sweep: Sweep | undefined): ProducerBenchReport['params'] {
  return {
    producers: r.producers,
    partitions: r.partitions,
    topics: 1,
    rateBytesPerSec: r.rate ?? null,
    durationMs: r.durationMs,
    valueSize: r.valueSize,
    keySize: KEY_BYTES,
    bufferBytes: r.bufferBytes,
    sweep: sweep ? { parameter: sweep.parameter, values: [...sweep.values] } : null,
  };
}

async function withClients<T>(target: BenchTarget, n: number, fn: (clients: Client[]) => Promise<T>): Promise<T> {
  const clients: Client[] = [];
  try {
    for (let i = 0; i < n; i++) clients.push(await target.connect());
    return await fn(clients);
  } finally {
    await Promise.allSettled(clients.map((c) => c.close()));
  }
}

async function measureBaseline(target: BenchTarget, r: Resolved, records: Records): Promise<BaselineFigures> {
  return withClients(target, r.producers, async (clients) => {
    const topic = benchTopicName('bench-prod-hand');
    await clients[0]!.createTopic(topic, r.partitions);
    try {
      return await handBatches(clients, topic, records, r.durationMs);
    } finally {
      await clients[0]!.deleteTopic(topic).catch(() => undefined);
    }
  });
}

interface PointSpec {
  lingerMs: number;
  batchBytes: number;
  durationMs: number;
}

async function measurePoint(
  target: BenchTarget,
  r: Resolved,
  options: ProducerBenchOptions,
  records: Records,
  spec: PointSpec,
): Promise<{ point: ProducerPoint; stall: StallFigures | null }> {
  return withClients(target, r.producers, async (clients) => {
    const topic = benchTopicName('bench-prod');
    await clients[0]!.createTopic(topic, r.partitions);
    const producers = clients.map((c) =>
      c.accumulator({
        lingerMs: spec.lingerMs,
        batchBytes: spec.batchBytes,
        bufferBytes: r.bufferBytes,
        deliveryTimeoutMs: options.deliveryTimeoutMs,
        requestTimeoutMs: options.requestTimeoutMs,
      }),
    );
    const rss = options.stallAfterMs === undefined ? undefined : new RssSampler();
    const stallTimer =
      options.stallAfterMs === undefined
        ? undefined
        : setTimeout(() => target.embedded?.suspend(), options.stallAfterMs);
    try {
      const measured = await runLoads(producers, r, { topic, records, durationMs: spec.durationMs, rss });
      const point = pointOf(spec, measured, modelInput(r, spec, topic));
      return { point, stall: rss ? stallFigures(rss, r, options, measured) : null };
    } finally {
      clearTimeout(stallTimer);
      rss?.stop();
      target.embedded?.resume();
      await Promise.allSettled(producers.map((p) => p.close({ drainMs: 0 })));
      await clients[0]!.deleteTopic(topic).catch(() => undefined);
    }
  });
}

/** Every producer's load at its share of the rate for `durationMs`, and what their metrics measured. */
async function runLoads(
  producers: readonly Producer[],
  r: Resolved,
  run: { topic: string; records: Records; durationMs: number; rss: RssSampler | undefined },
): Promise<Measured> {
  const recordBytes = KEY_BYTES + r.valueSize;
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  try {
    const start = performance.now();
    const perProducer = r.rate === undefined ? undefined : r.rate / recordBytes / r.producers;
    const load = {
      topic: run.topic,
      records: run.records,
      until: start + run.durationMs,
      recordCharge: recordCharge(recordBytes + 8, true),
      timeSettles: run.rss !== undefined,
    };
    const loads =
      perProducer === undefined
        ? await Promise.all(producers.map((p) => driveProducer(p, load)))
        : await drivePaced(producers, load, perProducer);
    const wallMs = performance.now() - start;
    delay.disable();
    const eventLoopDelayMs = { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6 };
    const metrics = producers.map((p) => p.metrics());
    return { ...combine(loads, metrics, wallMs, recordBytes), eventLoopDelayMs };
  } finally {
    delay.disable();
  }
}

/** The model's input for one point; undefined without a rate (the model needs r). */
function modelInput(r: Resolved, spec: PointSpec, topic: string): ModelInput | undefined {
  if (r.rate === undefined) return undefined;
  const recordBytes = KEY_BYTES + r.valueSize;
  return {
    producers: r.producers,
    topics: 1,
    partitions: r.partitions,
    clientPartitions: false,
    rateBytesPerSec: r.rate,
    batchBytes: payloadBudget(spec.batchBytes, topic, recordBytes),
    lingerMs: spec.lingerMs,
    recordBytes,
  };
}

function pointOf(spec: PointSpec, measured: Measured, input: ModelInput | undefined): ProducerPoint {
  const prediction = input ? predict(input) : null;
  return {
    lingerMs: spec.lingerMs,
    batchBytes: spec.batchBytes,
    prediction,
    measured,
    batchRatio: prediction ? measured.meanBatchBytes / prediction.meanBatchBytes : null,
    model: input ? checkModel(input, measured) : null,
  };
}

/** Key + value bytes a batch of `frameBytes` holds (each entry adds 8 length bytes; the frame has its header). */
function payloadBudget(frameBytes: number, topic: string, recordBytes: number): number {
  return ((frameBytes - batchOverhead(Buffer.byteLength(topic))) * recordBytes) / (recordBytes + 8);
}

function stallFigures(rss: RssSampler, r: Resolved, options: ProducerBenchOptions, measured: Measured): StallFigures {
  rss.stop();
  return {
    stalledAfterMs: options.stallAfterMs!,
    rssBaselineBytes: rss.baseline,
    rssPeakBytes: rss.peak,
    bufferBytes: r.bufferBytes,
    rssGrowthLimitBytes: r.bufferBytes + MIB_64,
    deliveryTimeoutMs: options.deliveryTimeoutMs ?? 120_000,
    maxSettleMs: measured.maxSettleMs,
  };
}
