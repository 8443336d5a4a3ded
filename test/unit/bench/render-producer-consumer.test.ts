/**
 * Rendering of `bench producer` and `bench consumer` over hand-built reports: which lines a run produces (no
 * prediction without --rate, the baseline and stall lines only when measured), the sweep chart's bar proportions,
 * and the consumer rows and CSV with and without the --exec path.
 */
import { describe, expect, it } from 'vitest';
import type { ConsumerBenchReport } from '../../../src/bench/consumer-bench.js';
import type { ProducerBenchReport, ProducerPoint } from '../../../src/bench/producer.js';
import { consumerCsv, consumerRows, consumerSummary } from '../../../src/cli/render/bench-consumer.js';
import { producerHeader, producerSummary, sweepChart } from '../../../src/cli/render/bench-producer.js';

const spread = { avg: 1, p50: 1, p99: 2, max: 3 };
function point(lingerMs: number, recordsPerSec: number, p99: number): ProducerPoint {
  return {
    lingerMs,
    batchBytes: 16_384,
    prediction: null,
    batchRatio: null,
    measured: {
      meanBatchBytes: 1000,
      batchRecords: { avg: 9.5, max: 12 },
      batchFrameBytes: spread,
      queueTimeMs: { ...spread, p99 },
      recordsPerSec,
      mbPerSec: 1.5,
      requestsPerSec: 10,
      acked: 100,
      failed: 0,
      uncertain: 0,
      eventLoopDelayMs: spread,
      arrivalBurstRecords: 1.5,
    },
  } as unknown as ProducerPoint;
}

function producerReport(over: Partial<ProducerBenchReport> = {}): ProducerBenchReport {
  return {
    params: {
      producers: 1,
      partitions: 4,
      rateBytesPerSec: null,
      valueSize: 100,
      keySize: 8,
      durationMs: 2000,
      sweep: null,
    },
    broker: { embedded: false, serverName: undefined, address: 'h:1', acks: null },
    points: [point(5, 1000, 4)],
    baseline: null,
    stall: null,
    ...over,
  } as unknown as ProducerBenchReport;
}

describe('bench producer rendering', () => {
  it('an unthrottled single run: header, no prediction, the measurement; no baseline or stall lines', () => {
    const r = producerReport();
    expect(producerHeader(r)).toBe(
      '1 producer → 1 topic × 4 partitions, unthrottled, 100-byte values + 8-byte keys, 2.00 s per run, broker at h:1',
    );
    const lines = producerSummary(r).split('\n');
    expect(lines[1]).toBe('linger 5 ms, batch 16.0 KiB');
    expect(lines[2]).toBe('prediction: none without --rate (the model needs the bytes/s per accumulator)');
    expect(lines[3]).toBe('measured: mean batch 1,000 B of key + value, 9.5 records (max 12)');
    expect(lines.some((l) => l.startsWith('hand-made batches'))).toBe(false);
    expect(lines.some((l) => l.startsWith('broker frozen'))).toBe(false);
  });

  it('a throttled embedded run with a baseline and a stall: every section, and no single-point lines for a sweep', () => {
    const r = producerReport({
      params: {
        ...producerReport().params,
        producers: 3,
        rateBytesPerSec: 2_500_000,
        sweep: { parameter: 'linger', values: [0, 5] },
      },
      broker: { embedded: true, acks: 'leader' } as never,
      baseline: { batchSize: 100, inFlight: 2, recordsPerSec: 5000, ratio: 0.5 } as never,
      stall: {
        stalledAfterMs: 500,
        rssBaselineBytes: 1024,
        rssPeakBytes: 3072,
        rssGrowthLimitBytes: 4096,
        maxSettleMs: 900,
        deliveryTimeoutMs: 1000,
      } as never,
    });
    const text = producerSummary(r);
    expect(text.split('\n')[0]).toContain('3 producers → 1 topic × 4 partitions, 2.50 MB/s in all');
    expect(text).toContain('embedded crater broker (acks leader)');
    expect(text).not.toContain('linger 5 ms, batch');
    expect(text).toContain(
      'hand-made batches (100 records, 2 in flight per connection, same run): 5,000 records/s; the accumulator reached 0.50x',
    );
    expect(text).toContain('(growth 2.00 KiB, bound bufferBytes + 64 MiB = 4.00 KiB)');
    expect(text).toContain('slowest send settled after 900 ms (delivery timeout 1.00 s)');
  });

  it('the sweep chart: the largest value gets the whole bar, the others in proportion down to eighths', () => {
    // 60 columns leave 17 cells per bar: 500/1000 is 8.5 cells, 250/1000 is 4.25, a zero p99 no bar at all.
    expect(sweepChart('linger', [point(0, 1000, 10), point(5, 500, 5), point(50, 250, 0)], 60).split('\n')).toEqual([
      'linger  records/s                p99 queue time',
      '0 ms    █████████████████ 1,000  █████████████████ 10.0 ms',
      '5 ms    ████████▌           500  ████████▌         5.00 ms',
      '50 ms   ████▎               250                       0 µs',
    ]);
  });
});

function consumerReport(exec: boolean): ConsumerBenchReport {
  const phase = (records: number, wallMs: number) => ({
    records,
    batches: 4,
    wallMs,
    recordsPerSec: (records * 1000) / wallMs,
    mbPerSec: 0.25,
    clientCpuMs: records / 1000,
    clientUsPerRecord: 1,
    brokerCpuMs: null,
    brokerUsPerRecord: null,
  });
  return {
    kind: 'consumer',
    broker: { embedded: false, serverName: undefined, address: 'h:1', acks: null },
    params: {
      records: 2000,
      valueSize: 100,
      keySize: 8,
      partitions: 2,
      maxSize: 500,
      fetchSize: 1000,
      workers: 2,
      repeat: 3,
      execCommand: exec ? 'cat' : null,
    },
    fetch: phase(2000, 100),
    batchConsumer: phase(2000, 125),
    exec: exec ? phase(2000, 400) : null,
    batchToFetchRatio: 0.8,
    pairedRatio: 0.75,
    runs: { fetch: [], batchConsumer: [], exec: [], pairedRatios: [] },
    targets: {
      batchToFetch: { target: 0.9, measured: 0.75, met: false },
      execRecordsPerSec: exec ? { target: 200_000, measured: 5000, met: false } : null,
    },
  } as unknown as ConsumerBenchReport;
}

describe('bench consumer rendering', () => {
  it('rows and CSV carry the exec path only when it ran', () => {
    expect(consumerRows(consumerReport(false)).map((r) => r.path)).toEqual(['fetch', 'batch-consumer']);
    expect(consumerCsv(consumerReport(true)).split('\n')).toEqual([
      'path,records,batches,wall_ms,records_per_sec,mb_per_sec,client_us_per_record,broker_us_per_record',
      'fetch,2000,4,100.000,20000.0,0.250,1.000,',
      'batch-consumer,2000,4,125.000,16000.0,0.250,1.000,',
      'consume --exec,2000,4,400.000,5000.0,0.250,1.000,',
    ]);
  });

  it('the summary names the broker, the exec command and the ratio', () => {
    expect(consumerSummary(consumerReport(true))).toBe(
      "2,000 records of 100 B, 2 partitions, fetch 1,000, batch consumer maxSize 500 × 2 worker(s); consume --exec 'cat', " +
        'unknown broker at h:1; median of 3 alternating runs; batch consumer / fetch = 0.80 (median of per-run ratios 0.75)\n' +
        'targets: batch consumer 0.75x fetch in the same run (target >= 0.9x, not met); consume --exec 5,000 records/s (target >= 200,000, not met)',
    );
    const embedded = { ...consumerReport(false), broker: { embedded: true, acks: 'none' } } as never;
    expect(consumerSummary(embedded)).toContain('worker(s), embedded crater broker (acks=none); median of 3');
  });
});
