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
import type { ProducerMetrics } from '../client/producer/producer-metrics.js';
import { recordCharge } from '../client/producer/accumulator.js';
import { batchOverhead } from '../client/moonmq/split-batch.js';
import { DEFAULT_MAX_FRAME_SIZE } from '../protocol/limits.js';
import { UsageError } from '../errors.js';
import { type BaselineFigures, handBatches } from './producer-baseline.js';
import { driveProducer, type LoadFigures, RssSampler } from './producer-load.js';
import { type Prediction, predict } from './producer-model.js';
import { MB, perSecond } from './stats.js';
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

export interface Measured {
  acked: number;
  failed: number;
  uncertain: number;
  wallMs: number;
  recordsPerSec: number;
  mbPerSec: number;
  requestsPerSec: number;
  /** Key + value bytes per batch (mean over all batches), and the frame bytes the metrics count. */
  meanBatchBytes: number;
  batchFrameBytes: { avg: number; p50: number; p99: number };
  batchRecords: { avg: number; max: number };
  queueTimeMs: { avg: number; p50: number; p99: number; max: number };
  maxSettleMs: number;
  /**
   * This process's event-loop delay during the run, ms. The model assumes smooth arrivals; a late timer makes the
   * load arrive in bursts of about rate × delay, so batches grow past the prediction when p50 passes the linger.
   */
  eventLoopDelayMs: { p50: number; p99: number };
  /**
   * Records the load sent in one go (one wake-up of its schedule), record-weighted mean: the model assumes 1. A late
   * wake-up sends everything that fell due meanwhile, and all of it lands in one batch.
   */
  arrivalBurstRecords: number;
}

export interface ProducerPoint {
  lingerMs: number;
  batchBytes: number;
  /** Null without a rate: the model needs r. */
  prediction: Prediction | null;
  measured: Measured;
  /** measured.meanBatchBytes / prediction.meanBatchBytes. */
  batchRatio: number | null;
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

/** One measurement, or one per value of `sweep`, on one broker. */
export async function runProducerBench(
  options: ProducerBenchOptions = {},
  sweep?: { parameter: SweepParameter; values: readonly number[] },
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
    const lingerMs = options.lingerMs ?? ProducerBenchDefaults.lingerMs;
    const batchBytes = options.batchBytes ?? DEFAULT_MAX_FRAME_SIZE;
    const unthrottled = r.rate === undefined && !sweep && options.stallAfterMs === undefined;
    if (unthrottled) {
      progress('warming up');
      await measurePoint(target, r, options, records, {
        lingerMs,
        batchBytes,
        durationMs: Math.min(1_000, r.durationMs),
      });
    }
    let baseline: ProducerBenchReport['baseline'] = null;
    if (unthrottled && options.baseline !== false) {
      progress('hand-made batches');
      baseline = { ...(await measureBaseline(target, r, records)), ratio: 0 };
    }
    const values = sweep ? [...sweep.values] : [undefined];
    const points: ProducerPoint[] = [];
    let stall: StallFigures | null = null;
    for (const value of values) {
      const point =
        value === undefined
          ? { lingerMs, batchBytes }
          : sweep?.parameter === 'linger'
            ? { lingerMs: value, batchBytes }
            : { lingerMs, batchBytes: value };
      progress(`producing for ${r.durationMs} ms (linger ${point.lingerMs} ms, batch ${point.batchBytes} bytes)`);
      const result = await measurePoint(target, r, options, records, { ...point, durationMs: r.durationMs });
      points.push(result.point);
      stall = result.stall;
    }
    if (baseline) baseline.ratio = points[0]!.measured.recordsPerSec / baseline.recordsPerSec;
    return {
      kind: 'producer',
      broker: target.info,
      params: {
        producers: r.producers,
        partitions: r.partitions,
        topics: 1,
        rateBytesPerSec: r.rate ?? null,
        durationMs: r.durationMs,
        valueSize: r.valueSize,
        keySize: KEY_BYTES,
        bufferBytes: r.bufferBytes,
        sweep: sweep ? { parameter: sweep.parameter, values: [...sweep.values] } : null,
      },
      points,
      baseline,
      stall,
    };
  } finally {
    await target.close();
  }
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

async function measureBaseline(
  target: BenchTarget,
  r: Resolved,
  records: Parameters<typeof handBatches>[2],
): Promise<BaselineFigures> {
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
  records: Parameters<typeof handBatches>[2],
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
    const recordBytes = KEY_BYTES + r.valueSize;
    const rss = options.stallAfterMs === undefined ? undefined : new RssSampler();
    const stallTimer =
      options.stallAfterMs === undefined
        ? undefined
        : setTimeout(() => target.embedded?.suspend(), options.stallAfterMs);
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    try {
      const start = performance.now();
      const perProducer = r.rate === undefined ? undefined : r.rate / recordBytes / r.producers;
      const loads = await Promise.all(
        producers.map((p) =>
          driveProducer(p, {
            topic,
            records,
            until: start + spec.durationMs,
            recordsPerSec: perProducer,
            recordCharge: recordCharge(recordBytes + 8, true),
            timeSettles: rss !== undefined,
          }),
        ),
      );
      const wallMs = performance.now() - start;
      delay.disable();
      const eventLoopDelayMs = { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6 };
      const measured = {
        ...combine(
          loads,
          producers.map((p) => p.metrics()),
          wallMs,
          recordBytes,
        ),
        eventLoopDelayMs,
      };
      const prediction =
        r.rate === undefined
          ? null
          : predict({
              producers: r.producers,
              topics: 1,
              partitions: r.partitions,
              clientPartitions: false,
              rateBytesPerSec: r.rate,
              batchBytes: payloadBudget(spec.batchBytes, topic, recordBytes),
              lingerMs: spec.lingerMs,
              recordBytes,
            });
      const batchRatio = prediction ? measured.meanBatchBytes / prediction.meanBatchBytes : null;
      const point: ProducerPoint = {
        lingerMs: spec.lingerMs,
        batchBytes: spec.batchBytes,
        prediction,
        measured,
        batchRatio,
      };
      return { point, stall: rss ? stallFigures(rss, r, options, measured) : null };
    } finally {
      clearTimeout(stallTimer);
      delay.disable();
      rss?.stop();
      target.embedded?.resume();
      await Promise.allSettled(producers.map((p) => p.close({ drainMs: 0 })));
      await clients[0]!.deleteTopic(topic).catch(() => undefined);
    }
  });
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

/**
 * Figures over all producers. Means are weighted by each producer's batches; a percentile is the median of the
 * producers' (p50) or their maximum (p99, max): every producer carries the same share of the load.
 */
function combine(
  loads: readonly LoadFigures[],
  metrics: readonly ProducerMetrics[],
  wallMs: number,
  recordBytes: number,
): Omit<Measured, 'eventLoopDelayMs'> {
  const sum = (f: (m: ProducerMetrics) => number): number => metrics.reduce((a, m) => a + f(m), 0);
  const requests = sum((m) => m['request-total']);
  const weighted = (f: (m: ProducerMetrics) => number): number =>
    requests === 0 ? 0 : sum((m) => f(m) * m['request-total']) / requests;
  const median = (f: (m: ProducerMetrics) => number): number =>
    [...metrics.map(f)].sort((a, b) => a - b)[(metrics.length - 1) >> 1] ?? 0;
  const max = (f: (m: ProducerMetrics) => number): number => Math.max(0, ...metrics.map(f));
  const acked = loads.reduce((a, l) => a + l.acked, 0);
  const batchRecordsAvg = weighted((m) => m['batch-records-avg']);
  return {
    acked,
    failed: loads.reduce((a, l) => a + l.failed, 0),
    uncertain: loads.reduce((a, l) => a + l.uncertain, 0),
    wallMs,
    recordsPerSec: perSecond(acked, wallMs),
    mbPerSec: perSecond(acked * recordBytes, wallMs) / MB,
    requestsPerSec: perSecond(requests, wallMs),
    meanBatchBytes: batchRecordsAvg * recordBytes,
    batchFrameBytes: {
      avg: weighted((m) => m['batch-size-avg']),
      p50: median((m) => m['batch-size-p50']),
      p99: max((m) => m['batch-size-p99']),
    },
    batchRecords: { avg: batchRecordsAvg, max: max((m) => m['batch-records-max']) },
    queueTimeMs: {
      avg: weighted((m) => m['record-queue-time-avg']),
      p50: median((m) => m['record-queue-time-p50']),
      p99: max((m) => m['record-queue-time-p99']),
      max: max((m) => m['record-queue-time-max']),
    },
    maxSettleMs: Math.max(0, ...loads.map((l) => l.maxSettleMs)),
    arrivalBurstRecords:
      loads.reduce((a, l) => a + l.burstSquares, 0) /
      Math.max(
        1,
        loads.reduce((a, l) => a + l.burstRecords, 0),
      ),
  };
}
