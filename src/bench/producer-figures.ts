/**
 * What `bench producer` measured, combined over its producers, and the check of the seed's model against it.
 *
 * The model (producer-model.ts) assumes what the seed assumes: records arrive smoothly, one at a time, at the
 * offered rate, and a batch leaves exactly `linger` after its first record. A run can break all three, and then the
 * measured mean batch says more about the load than about the accumulator:
 *
 *   - the load falls behind the offered rate (the machine cannot produce it): the schedule then sends its backlog in
 *     one go, and batches fill from it up to B; the model does not apply (`keptUp` false);
 *   - the load's wake-ups come late (a busy event loop): each sends everything that fell due meanwhile, and a batch
 *     opens with such a burst, not with one record (`meanWakeupRecords`);
 *   - the linger timer fires late: a batch stays open longer than `linger` (`effectiveLingerMs`: linger plus the
 *     event loop's median delay). The record queue time is no measure of it: it also counts the wait of a sealed
 *     batch for an in-flight slot, during which the batch no longer grows.
 *
 * `effective` is the same model evaluated with what the run really had, the opening burst and the linger: mean
 * batch ≈ min(B, burst + r × effective linger), with r the measured bytes/s per accumulator. With smooth arrivals
 * and an exact timer it is the seed's prediction.
 */
import type { ProducerMetrics } from '../client/producer/producer-metrics.js';
import type { LoadFigures } from './producer-load.js';
import { type ModelInput, type Prediction, predict } from './producer-model.js';
import { MB, perSecond } from './stats.js';

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
  /** The same, per wake-up (unweighted): what a batch opened at a wake-up starts with. */
  meanWakeupRecords: number;
}

export interface ModelCheck {
  offeredMbPerSec: number;
  /**
   * The pipeline kept up: at least 90% of the offered rate was acked over the run, and the median batch waited less
   * than 10 lingers before its request left. Otherwise batches queue behind the in-flight limit, the buffer fills,
   * the schedule sends its backlog at once, and the smooth-arrival model does not apply.
   */
  keptUp: boolean;
  /** How long a batch really stays open: linger plus the event loop's median delay (a late timer). */
  effectiveLingerMs: number;
  /** The model with the run's own opening burst, linger and rate. */
  effective: Prediction;
  /** measured.meanBatchBytes / effective.meanBatchBytes. */
  effectiveRatio: number;
}

/**
 * Figures over all producers. Means are weighted by each producer's batches; a percentile is the median of the
 * producers' (p50) or their maximum (p99, max): every producer carries the same share of the load.
 */
export function combine(
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
  const total = (f: (l: LoadFigures) => number): number => loads.reduce((a, l) => a + f(l), 0);
  const acked = total((l) => l.acked);
  const batchRecordsAvg = weighted((m) => m['batch-records-avg']);
  return {
    acked,
    failed: total((l) => l.failed),
    uncertain: total((l) => l.uncertain),
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
      total((l) => l.burstSquares) /
      Math.max(
        1,
        total((l) => l.burstRecords),
      ),
    meanWakeupRecords:
      total((l) => l.burstRecords) /
      Math.max(
        1,
        total((l) => l.wakeups),
      ),
  };
}

/** The model against the run: did the load keep up, and what the model says with the run's own arrivals. */
export function checkModel(input: ModelInput, measured: Measured): ModelCheck {
  const offeredMbPerSec = input.rateBytesPerSec / MB;
  const achieved = measured.mbPerSec * MB;
  const effectiveLingerMs = input.lingerMs + measured.eventLoopDelayMs.p50;
  const burst = Math.max(1, measured.meanWakeupRecords) * input.recordBytes;
  const base = predict({ ...input, rateBytesPerSec: achieved, lingerMs: effectiveLingerMs });
  const meanBatchBytes = Math.min(input.batchBytes, burst + base.lingerArrivalsBytes);
  const effective = { ...base, meanBatchBytes, meanBatchRecords: meanBatchBytes / input.recordBytes };
  return {
    offeredMbPerSec,
    keptUp: achieved >= 0.9 * input.rateBytesPerSec && measured.queueTimeMs.p50 < 10 * effectiveLingerMs,
    effectiveLingerMs,
    effective,
    effectiveRatio: measured.meanBatchBytes / meanBatchBytes,
  };
}
