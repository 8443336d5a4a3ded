/**
 * Rendering of `bench producer`: the seed's prediction next to the measurement, the hand-batching comparison, the
 * stall figures, and for a sweep a terminal chart (records/s and p99 record queue time per value, as bars).
 */
import type { Measured, ModelCheck, ProducerBenchReport, ProducerPoint, SweepParameter } from '../../bench/producer.js';
import type { Prediction } from '../../bench/producer-model.js';
import { barChart } from './bar-chart.js';
import { formatBytes, formatCount, formatDuration } from './format.js';

const n = (v: number): string => formatCount(Math.round(v));
const bytes = (v: number): string => formatBytes(Math.round(v));

export function producerHeader(report: ProducerBenchReport): string {
  const p = report.params;
  const rate = p.rateBytesPerSec === null ? 'unthrottled' : `${(p.rateBytesPerSec / 1e6).toFixed(2)} MB/s in all`;
  const broker = report.broker.embedded
    ? `embedded crater broker (acks ${report.broker.acks})`
    : `${report.broker.serverName ?? 'broker'} at ${report.broker.address}`;
  return `${p.producers} producer${p.producers === 1 ? '' : 's'} → 1 topic × ${p.partitions} partitions, ${rate}, ${p.valueSize}-byte values + ${p.keySize}-byte keys, ${formatDuration(p.durationMs)} per run, ${broker}`;
}

export function predictionLines(p: Prediction, lingerMs: number): string[] {
  return [
    `prediction (${p.accumulators} accumulators = ${p.basis}; the MoonMQ protocol partitions on the broker):`,
    `  r = ${n(p.bytesPerSecPerAccumulator)} B/s per accumulator, fill time B/r = ${formatDuration(p.fillTimeMs)}, arrivals during linger r×L = ${n(p.lingerArrivalsBytes)} B (L = ${lingerMs} ms)`,
    `  mean batch ≈ min(B, first record + r×L) = ${n(p.meanBatchBytes)} B (${p.meanBatchRecords.toFixed(1)} records, ${p.limitedBy}-bound)`,
  ];
}

export function measuredLines(m: Measured, ratio: number | null): string[] {
  const vs = ratio === null ? '' : ` (${ratio.toFixed(2)}x the prediction)`;
  return [
    `measured: mean batch ${n(m.meanBatchBytes)} B of key + value${vs}, ${m.batchRecords.avg.toFixed(1)} records (max ${m.batchRecords.max})`,
    `  batch frames avg ${bytes(m.batchFrameBytes.avg)}, p50 ${bytes(m.batchFrameBytes.p50)}, p99 ${bytes(m.batchFrameBytes.p99)}`,
    `  record queue time avg ${formatDuration(m.queueTimeMs.avg)}, p50 ${formatDuration(m.queueTimeMs.p50)}, p99 ${formatDuration(m.queueTimeMs.p99)}, max ${formatDuration(m.queueTimeMs.max)}`,
    `  ${n(m.recordsPerSec)} records/s, ${m.mbPerSec.toFixed(1)} MB/s, ${n(m.requestsPerSec)} requests/s; ${n(m.acked)} acked, ${n(m.failed)} failed, ${n(m.uncertain)} uncertain`,
    `  event-loop delay p50 ${formatDuration(m.eventLoopDelayMs.p50)}, p99 ${formatDuration(m.eventLoopDelayMs.p99)} (late timers make arrivals burstier than the model's smooth ones)`,
    `  arrivals came ${m.arrivalBurstRecords.toFixed(1)} records at a time (record-weighted; the model assumes 1)`,
  ];
}

/** The model against the run (what --json has as `model`): did the load keep up, and the run's own prediction. */
export function modelLines(c: ModelCheck, measuredMbPerSec: number): string[] {
  const e = c.effective;
  const kept = c.keptUp
    ? 'the load kept up with the offered rate, so the model applies'
    : 'the load did NOT keep up (under 90% of the offered rate acked, or batches waited 10 lingers for a request): the model does not apply, batches fill from the backlog';
  return [
    `model: offered ${c.offeredMbPerSec.toFixed(2)} MB/s, achieved ${measuredMbPerSec.toFixed(2)} MB/s; keptUp ${c.keptUp}: ${kept}`,
    `  effective (the run's own rate, opening burst and linger ${formatDuration(c.effectiveLingerMs)}): r = ${n(e.bytesPerSecPerAccumulator)} B/s per accumulator, mean batch ≈ ${n(e.meanBatchBytes)} B (${e.meanBatchRecords.toFixed(1)} records); measured ${c.effectiveRatio.toFixed(2)}x that`,
  ];
}

export function producerSummary(report: ProducerBenchReport): string {
  const lines = [producerHeader(report)];
  const point = report.points[0]!;
  if (report.params.sweep === null) {
    lines.push(`linger ${point.lingerMs} ms, batch ${bytes(point.batchBytes)}`);
    if (point.prediction) lines.push(...predictionLines(point.prediction, point.lingerMs));
    else lines.push('prediction: none without --rate (the model needs the bytes/s per accumulator)');
    lines.push(...measuredLines(point.measured, point.batchRatio));
    if (point.model) lines.push(...modelLines(point.model, point.measured.mbPerSec));
  }
  const b = report.baseline;
  if (b) {
    lines.push(
      `hand-made batches (${b.batchSize} records, ${b.inFlight} in flight per connection, same run): ${n(b.recordsPerSec)} records/s; the accumulator reached ${b.ratio.toFixed(2)}x`,
    );
  }
  const s = report.stall;
  if (s) {
    const growth = s.rssPeakBytes - s.rssBaselineBytes;
    lines.push(
      `broker frozen after ${formatDuration(s.stalledAfterMs)}: RSS ${bytes(s.rssBaselineBytes)} → peak ${bytes(s.rssPeakBytes)} (growth ${bytes(growth)}, bound bufferBytes + 64 MiB = ${bytes(s.rssGrowthLimitBytes)})`,
      `  slowest send settled after ${formatDuration(s.maxSettleMs)} (delivery timeout ${formatDuration(s.deliveryTimeoutMs)})`,
    );
  }
  return lines.join('\n');
}

/** records/s and p99 record queue time per swept value, as two bar columns that fit `columns`. */
export function sweepChart(parameter: SweepParameter, points: readonly ProducerPoint[], columns = 80): string {
  const label = (p: ProducerPoint): string => (parameter === 'linger' ? `${p.lingerMs} ms` : bytes(p.batchBytes));
  return barChart(
    parameter,
    points.map(label),
    [
      { title: 'records/s', values: points.map((p) => p.measured.recordsPerSec), format: n },
      { title: 'p99 queue time', values: points.map((p) => p.measured.queueTimeMs.p99), format: formatDuration },
    ],
    columns,
  );
}
