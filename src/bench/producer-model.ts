/**
 * The seed's steady-load model of one accumulator (seed 001, "batch fill time ≈ B / r"), computed for the
 * accumulators this backend really has: on the MoonMQ protocol the broker partitions, so a producer keeps one batch
 * per topic (producers × topics accumulators); a backend that partitions in the client keeps one per partition
 * (producers × partitions). Pure arithmetic, so a report's prediction can be checked without a broker.
 *
 *   r                 bytes/s entering one accumulator = total rate / accumulators
 *   fill time         B / r
 *   linger arrivals   r × L (expected bytes arriving while the first record lingers)
 *   mean batch        ≈ min(B, first record + r × L): a batch leaves full, or when the linger of its first record ends
 */
export type AccumulatorBasis = 'producers × topics' | 'producers × partitions';

export interface ModelInput {
  producers: number;
  topics: number;
  partitions: number;
  /** True for a backend that partitions in the client (one batch per partition). */
  clientPartitions: boolean;
  /** Total bytes/s of key + value over all producers. */
  rateBytesPerSec: number;
  /** Batch target in key + value bytes. */
  batchBytes: number;
  lingerMs: number;
  recordBytes: number;
}

export interface Prediction {
  basis: AccumulatorBasis;
  accumulators: number;
  bytesPerSecPerAccumulator: number;
  fillTimeMs: number;
  lingerArrivalsBytes: number;
  meanBatchBytes: number;
  meanBatchRecords: number;
  /** 'linger' when batches leave on linger (fill time > linger), 'size' when they fill first. */
  limitedBy: 'linger' | 'size';
}

export function predict(input: ModelInput): Prediction {
  const basis: AccumulatorBasis = input.clientPartitions ? 'producers × partitions' : 'producers × topics';
  const accumulators = input.producers * (input.clientPartitions ? input.partitions : input.topics);
  const r = input.rateBytesPerSec / accumulators;
  const fillTimeMs = (input.batchBytes / r) * 1000;
  const lingerArrivalsBytes = (r * input.lingerMs) / 1000;
  const meanBatchBytes = Math.min(input.batchBytes, input.recordBytes + lingerArrivalsBytes);
  return {
    basis,
    accumulators,
    bytesPerSecPerAccumulator: r,
    fillTimeMs,
    lingerArrivalsBytes,
    meanBatchBytes,
    meanBatchRecords: meanBatchBytes / input.recordBytes,
    limitedBy: fillTimeMs > input.lingerMs ? 'linger' : 'size',
  };
}
