/**
 * `producer.metrics()`: Kafka's producer metric names with Kafka's meaning, as one plain object. Queue time is per
 * batch, as in Kafka: the time its oldest record waited in the accumulator before the batch's first request left.
 * Distributions live in HdrHistograms (µs, three significant digits), so p99 costs no sorting.
 */
import { createRequire } from 'node:module';
import type { Histogram } from 'hdr-histogram-js';

// The one class used, not the package's index: the index loads every histogram kind, the log reader/writer, the
// WebAssembly build and pako (~60 ms of every CLI start-up that loads the producer); this file alone, ~8 ms.
// Required (CommonJS) rather than imported, so `default` is the class under Node and under vitest's interop alike.
const Int32Histogram = (
  createRequire(import.meta.url)(
    'hdr-histogram-js/dist/Int32Histogram.js',
  ) as typeof import('hdr-histogram-js/dist/Int32Histogram.js')
).default;

export interface ProducerMetrics {
  'record-queue-time-avg': number;
  'record-queue-time-max': number;
  'record-queue-time-p50': number;
  'record-queue-time-p99': number;
  /** Bytes of the PRODUCE_BATCH frames sent (first attempts). */
  'batch-size-avg': number;
  'batch-size-max': number;
  'batch-size-p50': number;
  'batch-size-p99': number;
  'batch-records-avg': number;
  'batch-records-max': number;
  'records-per-request-avg': number;
  'record-send-total': number;
  'request-total': number;
  'buffer-total-bytes': number;
  'buffer-available-bytes': number;
  'buffer-exhausted-records': number;
  'record-retry-total': number;
  'record-error-total': number;
  'record-uncertain-total': number;
  'requests-in-flight': number;
}

/** What `build({ bitBucketSize: 32, useWebAssembly: false, ... })` returns: an auto-resizing Int32Histogram. */
function histogram(highest: number): Histogram {
  const h = new Int32Histogram(1, highest, 3);
  h.autoResize = true;
  return h;
}

export class MetricsRecorder {
  private readonly queueTimeUs = histogram(3_600_000_000);
  private readonly batchBytes = histogram(1_073_741_824);
  private queueTimeSumMs = 0;
  private batchBytesSum = 0;
  private batchRecordsSum = 0;
  private batchRecordsMax = 0;
  private batches = 0;
  requests = 0;
  recordsSent = 0;
  retries = 0;
  errors = 0;
  uncertain = 0;

  /** A batch's first request: its oldest record's wait, its frame size and record count. */
  recordBatch(queueTimeMs: number, frameBytes: number, records: number): void {
    this.queueTimeUs.recordValue(Math.max(1, Math.round(queueTimeMs * 1000)));
    this.queueTimeSumMs += queueTimeMs;
    this.batchBytes.recordValue(Math.max(1, frameBytes));
    this.batchBytesSum += frameBytes;
    this.batchRecordsSum += records;
    if (records > this.batchRecordsMax) this.batchRecordsMax = records;
    this.batches += 1;
  }

  recordRequest(records: number): void {
    this.requests += 1;
    this.recordsSent += records;
  }

  snapshot(
    buffer: { totalBytes: number; availableBytes: number; exhausted: number },
    inFlight: number,
  ): ProducerMetrics {
    const n = this.batches;
    const avg = (sum: number, of: number): number => (of === 0 ? 0 : sum / of);
    const q = this.queueTimeUs;
    const b = this.batchBytes;
    const at = (h: Histogram, p: number): number =>
      h.totalCount === 0 ? 0 : Math.min(h.maxValue, h.getValueAtPercentile(p));
    return {
      'record-queue-time-avg': avg(this.queueTimeSumMs, n),
      'record-queue-time-max': q.totalCount === 0 ? 0 : q.maxValue / 1000,
      'record-queue-time-p50': at(q, 50) / 1000,
      'record-queue-time-p99': at(q, 99) / 1000,
      'batch-size-avg': avg(this.batchBytesSum, n),
      'batch-size-max': b.totalCount === 0 ? 0 : b.maxValue,
      'batch-size-p50': at(b, 50),
      'batch-size-p99': at(b, 99),
      'batch-records-avg': avg(this.batchRecordsSum, n),
      'batch-records-max': this.batchRecordsMax,
      'records-per-request-avg': avg(this.recordsSent, this.requests),
      'record-send-total': this.recordsSent,
      'request-total': this.requests,
      'buffer-total-bytes': buffer.totalBytes,
      'buffer-available-bytes': buffer.availableBytes,
      'buffer-exhausted-records': buffer.exhausted,
      'record-retry-total': this.retries,
      'record-error-total': this.errors,
      'record-uncertain-total': this.uncertain,
      'requests-in-flight': inFlight,
    };
  }
}
