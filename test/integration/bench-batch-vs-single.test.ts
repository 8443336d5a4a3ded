/**
 * The benches against the embedded broker child (dist/bench/broker-child.js: `npm test` builds first). No timing
 * assertions: only counts, fsyncs and the report's internal consistency.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runBatchVsSingle } from '../../src/bench/batch-vs-single.js';
import { EmbeddedBroker } from '../../src/bench/embedded-broker.js';
import { runThroughput } from '../../src/bench/throughput.js';
import { partitionForKey } from '../../src/protocol/fnv1a.js';
import { benchRecords } from '../../src/bench/target.js';

describe('batch-vs-single on the embedded broker', () => {
  it('40 records, one repeat: one fsync per single produce, one per touched partition for the batch', async () => {
    const report = await runBatchVsSingle({ records: 40, repeat: 1, partitions: 4, warmupSingles: 50 });
    const touched = new Set(benchRecords({ count: 40, valueSize: 1 }).map((r) => partitionForKey(r.key as Buffer, 4)))
      .size;

    expect(report.broker).toMatchObject({ embedded: true, serverName: 'crater', acks: 'leader' });
    expect(report.params).toMatchObject({
      records: 40,
      repeat: 1,
      partitions: 4,
      valueSize: 100,
      codec: 'none',
      idempotent: false,
    });
    expect(report.batch.batchSize).toBe(40);
    expect(report.single.frames).toBe(40);
    expect(report.batch.frames).toBe(1);
    expect(report.floors.rttMs.count).toBe(400);
    expect(report.floors.fsyncMs.count).toBe(400);
    expect(report.floors.perRecordMs).toBeCloseTo(report.floors.rttMs.p50 + report.floors.fsyncMs.p50, 9);
    expect(report.singleOverFloor).toBeCloseTo(report.single.wallMs.median / 40 / report.floors.perRecordMs, 9);
    expect(report.floors.perRecordMeanMs).toBeGreaterThan(0);
    expect(report.singleOverMeanFloor).toBeCloseTo(report.single.wallMs.median / 40 / report.floors.perRecordMeanMs, 9);
    expect(report.targets.floorRatio).toEqual({
      target: 1.3,
      measured: report.singleOverFloor,
      met: report.singleOverFloor <= 1.3,
    });
    expect(report.targets.p99OverFsyncP99.measured).toBe(report.single.latencyMs.p99 / report.floors.fsyncMs.p99);
    expect(report.targets.batchMedianMs).toMatchObject({ target: 1, measured: report.batch.wallMs.median });
    // The batch floor: the batch's 4 partition fsyncs at once, each of a quarter of its stored bytes (137 B a record).
    const batchFloor = report.floors.batch!;
    expect(batchFloor).toMatchObject({ files: 4, bytesPerFile: (40 * 137) / 4 });
    expect(batchFloor.fsyncMs.count).toBe(100);
    expect(batchFloor.ms).toBeCloseTo(report.floors.rttMs.p50 + batchFloor.fsyncMs.p50, 9);
    expect(report.batchOverFloor).toBeCloseTo(report.batch.wallMs.median / batchFloor.ms, 9);
    expect(report.single.fsyncs).toEqual([40]);
    expect(report.batch.fsyncs).toEqual([touched]);
    expect(touched).toBe(4);
    expect(report.single.latencyMs.count).toBe(40);
    expect(report.single.latencyMs.p50).toBeLessThanOrEqual(report.single.latencyMs.max);
    // Both processes did work for every record, and the broker timed its 40 fsyncs of the one repeat.
    expect(report.single.cpuUsPerRecord.broker).toBeGreaterThan(0);
    expect(report.single.cpuUsPerRecord.client).toBeGreaterThan(0);
    expect(report.single.brokerFsyncMs?.p50).toHaveLength(1);
    expect(report.single.brokerFsyncMs!.p50[0]).toBeGreaterThan(0);
    expect(report.single.brokerFsyncMs!.p99[0]).toBeGreaterThanOrEqual(report.single.brokerFsyncMs!.p50[0]!);
    // No timing assertion: the batch took measurable time, so the speedup is the ratio of the medians (exactly that
    // division), not the 0 the report falls back to when the batch median is 0.
    expect(report.batch.wallMs.median).toBeGreaterThan(0);
    expect(report.speedup).toBe(report.single.wallMs.median / report.batch.wallMs.median);
    expect(report.speedup).toBeCloseTo(report.single.wallMs.median / report.batch.wallMs.median, 9);
    expect(report.single.wallMs.min).toBe(report.single.wallMs.max);
    expect(report.sweep).toBeNull();
  }, 60_000);

  it('untimed warm-up singles; the floors take as many samples as single mode has latencies (over 400)', async () => {
    const report = await runBatchVsSingle({ records: 250, repeat: 2, partitions: 1, warmupSingles: 30 });
    expect(report.params.warmupSingles).toBe(30);
    expect(report.single.latencyMs.count).toBe(500);
    expect(report.single.fsyncs).toEqual([250, 250]);
    expect(report.floors.rttMs.count).toBe(500);
    expect(report.floors.fsyncMs.count).toBe(500);
    expect(report.floors.batch!.fsyncMs.count).toBe(125);
    await expect(runBatchVsSingle({ records: 10, warmupSingles: -1 })).rejects.toThrow(/warm-up singles/);
  }, 60_000);

  it('warms up with 2,000 singles by default', async () => {
    const report = await runBatchVsSingle({ records: 10, repeat: 1, partitions: 1 });
    expect(report.params.warmupSingles).toBe(2_000);
  }, 60_000);

  it('--idempotent, 40 records, one repeat: the same report shape and fsyncs through the idempotent producer', async () => {
    const report = await runBatchVsSingle({
      records: 40,
      repeat: 1,
      partitions: 4,
      idempotent: true,
      warmupSingles: 50,
    });
    expect(report.params).toMatchObject({ records: 40, repeat: 1, partitions: 4, idempotent: true });
    expect(report.single.frames).toBe(40);
    expect(report.batch).toMatchObject({ frames: 1, batchSize: 40 });
    // An ephemeral producer writes no __producer_state memo: one fsync per record, one per touched partition.
    expect(report.single.fsyncs).toEqual([40]);
    expect(report.batch.fsyncs).toEqual([4]);
    expect(report.single.latencyMs.count).toBe(40);
    expect(report.speedup).toBeCloseTo(report.single.wallMs.median / report.batch.wallMs.median, 9);
    expect(report.sweep).toBeNull();
  }, 60_000);

  it('--idempotent over 1,024 records: batch mode sends ceil(N / 1,024) batches', async () => {
    const report = await runBatchVsSingle({
      records: 2_100,
      repeat: 1,
      partitions: 1,
      idempotent: true,
      warmupSingles: 50,
      batchSizes: [1_024],
    });
    expect(report.batch).toMatchObject({ frames: 3, batchSize: 1_024 });
    expect(report.batch.fsyncs).toEqual([3]);
    expect(report.sweep?.map((p) => [p.batchSize, p.frames])).toEqual([[1_024, 3]]);
    await expect(runBatchVsSingle({ records: 10, idempotent: true, batchSizes: [2_000] })).rejects.toThrow(/1\.\.1024/);
    // 2,100 awaited single produces and as many floor samples: 22 s alone on a slow-fsync VM, past 60 s under load.
  }, 180_000);

  it('a sweep reports one point per batch size with the frames it took', async () => {
    const report = await runBatchVsSingle({ records: 30, repeat: 1, batchSizes: [1, 7, 30], warmupSingles: 50 });
    expect(report.sweep?.map((p) => [p.batchSize, p.frames])).toEqual([
      [1, 30],
      [7, 5],
      [30, 1],
    ]);
    expect(report.sweep?.[0]?.fsyncs).toEqual([30]);
  }, 60_000);
});

describe('throughput on the embedded broker', () => {
  it('produces and fetches every record, pipelined over two connections', async () => {
    const report = await runThroughput({ records: 2500, batchSize: 500, inFlight: 2, connections: 2, fetchSize: 300 });
    expect(report.produce).toMatchObject({ records: 2500, requests: 5, bytes: 2500 * 108 });
    expect(report.produce.latencyMs.count).toBe(5);
    // acks=leader: at least one fsync per batch, at most one per partition each of the 5 batches touched (4 by
    // default); group commit may merge concurrent batches' fsyncs of one partition, so the count is a range. Only the
    // user topics' fsyncs count: the warm-up's trailing offset commits (an internal topic) may land in the window.
    expect(report.produce.fsyncs).toBeGreaterThanOrEqual(5);
    expect(report.produce.fsyncs).toBeLessThanOrEqual(5 * 4);
    expect(report.fetch.records).toBe(2500);
    expect(report.fetch.requests).toBeGreaterThanOrEqual(Math.ceil(2500 / 300));
    expect(report.produce.brokerPeakRssBytes).toBeGreaterThan(10_000_000);
    expect(report.fetch.recordsPerSec).toBeCloseTo((2500 * 1000) / report.fetch.wallMs, 6);
    expect(report.produce.brokerCpuNsPerRecord).toBeGreaterThan(0);
    expect(report.produce.clientCpuNsPerRecord).toBeGreaterThan(0);
    expect(report.produce.recordsPerFsync).toBe(2500 / report.produce.fsyncs!);
    // The timer sees every asynchronous fsync of the phase: the user topic's, and any internal topic's besides.
    expect(report.produce.brokerFsync!.count).toBeGreaterThanOrEqual(report.produce.fsyncs!);
    expect(report.produce.brokerFsync!.p99Ms).toBeGreaterThanOrEqual(report.produce.brokerFsync!.p50Ms);
    expect(report.fetch.brokerFsync).toBeNull();
    expect(report.partitionScaling).toBeNull();
  }, 60_000);

  it('--vs-partitions: a second produce phase into that many partitions, interleaved in rounds, and the ratio', async () => {
    const report = await runThroughput({ records: 2500, batchSize: 500, partitions: 2, vsPartitions: 1 });
    const vs = report.partitionScaling!;
    expect(report.params).toMatchObject({ partitions: 2, vsPartitions: 1 });
    expect(vs.partitions).toBe(1);
    // Five rounds of 500 records each side: one batch per round.
    expect(vs.produce).toMatchObject({ records: 2500, requests: 5 });
    expect(report.produce).toMatchObject({ records: 2500, requests: 5 });
    // One partition: every batch one fsync, unless group commit merged two (one in flight: it cannot).
    expect(vs.produce.fsyncs).toBe(5);
    expect(vs.rounds).toHaveLength(5);
    const sorted = [...vs.rounds].sort((a, b) => a - b);
    expect(vs.ratio).toBe(sorted[2]);
    expect(report.fetch.records).toBe(2500);
  }, 60_000);

  it('--restart-before-fetch with pipelined FETCHes reads every record from a restarted broker', async () => {
    const report = await runThroughput({
      records: 3000,
      batchSize: 1000,
      fetchSize: 400,
      fetchInFlight: 3,
      restartBeforeFetch: true,
      fetchDecode: 'table',
    });
    expect(report.params).toMatchObject({ fetchInFlight: 3, restartBeforeFetch: true, fetchDecode: 'table' });
    expect(report.fetch.records).toBe(3000);
    expect(report.fetch.requests).toBeGreaterThanOrEqual(Math.ceil(3000 / 400));
    // The restarted broker has fsynced nothing since it started, and served the fetch without writing records.
    expect(report.fetch.brokerCpuNsPerRecord).toBeGreaterThan(0);
  }, 60_000);

  it('a value of 10,000 bytes at the default batch size is split into frames under the limit', async () => {
    // The default 1,000 per FETCH asks for 10 MB replies: the broker cuts each to half its 16 MiB send cap
    // (broker-fetch-reply-cap.test.ts), where an unbounded pair once passed the cap and closed the connection.
    const report = await runThroughput({ records: 1000, valueSize: 10_000 });
    expect(report.produce.records).toBe(1000);
    expect(report.fetch.records).toBe(1000);
  }, 60_000);
});

describe('EmbeddedBroker', () => {
  it('answers stats over IPC and removes its data dir on close', async () => {
    const broker = await EmbeddedBroker.start();
    const stats = await broker.stats();
    // Nothing produced yet: a broker that has only started has fsynced no record.
    expect(stats.fsyncCount).toBe(0);
    expect(stats.peakRssBytes).toBeGreaterThanOrEqual(stats.rssBytes);
    expect(fs.existsSync(broker.dataDir)).toBe(true);
    await broker.close();
    expect(fs.existsSync(broker.dataDir)).toBe(false);
    await expect(broker.stats()).rejects.toThrow(/not running/);
  }, 30_000);
});
