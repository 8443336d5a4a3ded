/**
 * The storage, consumer and share benchmarks as library calls with tiny parameters: every record written is read
 * back, the fsync counts follow the batch shape, the run's topics are gone afterwards, and bad parameters are
 * usage errors. Figures are never judged here (speed is measured by `npm run bench`, not by tests).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runConsumerBench } from '../../src/bench/consumer-bench.js';
import { runShareBench } from '../../src/bench/share.js';
import { runStorageBench } from '../../src/bench/storage-bench.js';
import { connect } from '../../src/client/client.js';
import { UsageError } from '../../src/errors.js';
import { useTempBroker } from '../helpers/temp-broker.js';

describe('runStorageBench', () => {
  let parent = '';
  beforeEach(async () => {
    parent = await fs.mkdtemp(path.join(os.tmpdir(), 'crater-bench-parent-'));
  });
  afterEach(async () => {
    await fs.rm(parent, { recursive: true, force: true });
  });

  it('writes, appends and reads back every record with one fsync per batch, and removes its directory', async () => {
    const report = await runStorageBench({
      dir: parent,
      records: 250,
      valueBytes: 20,
      batchSize: 100,
      producers: 3,
      syncsPerProducer: 4,
      repeats: 1,
    });
    expect(report).toMatchObject({ records: 250, valueBytes: 20, batchSize: 100, repeats: 1 });
    const bytes = 250 * report.recordBytes;
    // 100 + 100 + 50 records: three writes, three fsyncs on either path (the log's one sync() per batch, nothing
    // else to share it with), and the same bytes.
    expect(report.rawWrite).toMatchObject({ records: 250, bytes, fsyncs: 3 });
    expect(report.append).toMatchObject({ records: 250, bytes, fsyncs: 3 });
    expect(report.read).toMatchObject({ records: 250, bytes, fsyncs: 0 });
    expect(report.appendVsRaw).toBeCloseTo(report.append.recordsPerSec / report.rawWrite.recordsPerSec, 9);
    expect(report.groupCommit.map((g) => [g.policy, g.producers, g.syncs])).toEqual([
      ['eager', 1, 4],
      ['eager', 3, 12],
      ['linger', 1, 4],
      ['linger', 3, 12],
    ]);
    for (const g of report.groupCommit) {
      // A lone producer's every sync needs its own fsync; concurrent ones may share, never exceed one per sync.
      if (g.producers === 1) expect(g.fsyncs).toBe(g.syncs);
      expect(g.fsyncs).toBeGreaterThanOrEqual(1);
      expect(g.fsyncs).toBeLessThanOrEqual(g.syncs);
    }
    expect(await fs.readdir(parent)).toEqual([]);
  });
});

describe('consumer and share benches against a broker given by address', () => {
  const env = useTempBroker();

  it('runConsumerBench: both paths read every record on each run, the exec phase is reported, topics deleted', async () => {
    await env.start();
    const broker = `127.0.0.1:${env.broker.address.port}`;
    const steps: string[] = [];
    const execRuns: Array<{ topic: string; records: number }> = [];
    const report = await runConsumerBench({
      broker,
      records: 300,
      valueSize: 16,
      partitions: 2,
      maxSize: 40,
      fetchSize: 100,
      repeat: 2,
      onProgress: (s) => steps.push(s),
      exec: {
        command: 'true',
        // A stand-in for `consume --exec` that really drains the topic as its group, on a connection of its own (a
        // connection fetches as one group only).
        run: async (_admin, topic, group, records) => {
          const client = await connect({ broker });
          let got = 0;
          let batches = 0;
          try {
            while (got < records) {
              got += (await client.fetch(topic, group, { maxRecords: 1000 })).records.length;
              batches++;
            }
          } finally {
            await client.close();
          }
          execRuns.push({ topic, records: got });
          return { wallMs: 1, records: got, batches };
        },
      },
    });
    expect(report.kind).toBe('consumer');
    expect(report.broker).toMatchObject({ embedded: false, acks: null });
    expect(report.params).toMatchObject({ records: 300, partitions: 2, keySize: 8, execCommand: 'true', repeat: 2 });
    expect(report.fetch.records).toBe(300);
    expect(report.fetch.batches).toBeGreaterThanOrEqual(3);
    expect(report.batchConsumer.records).toBe(300);
    expect(report.exec).toMatchObject({ records: 300 });
    expect(report.runs.fetch).toHaveLength(2);
    expect(report.runs.batchConsumer).toHaveLength(2);
    expect(report.runs.exec).toHaveLength(2);
    expect(report.runs.pairedRatios).toHaveLength(2);
    // A broker given by address: its CPU time is not observable.
    expect(report.fetch).toMatchObject({ brokerCpuMs: null, brokerUsPerRecord: null });
    expect(report.batchConsumer.clientCpuMs).toBeGreaterThan(0);
    // The warm-up pass drains the warm topic, then each run drains the measured one.
    expect(execRuns.map((r) => r.records)).toEqual([300, 300, 300]);
    expect(steps[0]).toBe(`connecting to ${broker}`);
    expect(steps).toContain('run 2 of 2: consume --exec true');
    const client = await env.client();
    expect((await client.listTopics()).filter((t) => t.startsWith('bench-'))).toEqual([]);
  });

  it('runShareBench: every record is seen once across the consumers; the drain topic is deleted', async () => {
    await env.start();
    const report = await runShareBench({
      broker: `127.0.0.1:${env.broker.address.port}`,
      records: 120,
      consumers: 2,
      partitions: 2,
      valueSize: 8,
      maxRecords: 25,
    });
    expect(report).toMatchObject({ kind: 'share', records: 120, brokerPeakRssBytes: null, fsyncs: null });
    expect(report.params).toEqual({
      records: 120,
      consumers: 2,
      partitions: 2,
      valueSize: 8,
      maxRecords: 25,
      maxWaitMs: 10,
      ackMode: 'implicit',
    });
    expect(report.perConsumer).toHaveLength(2);
    // Every record delivered is either a first sighting or counted as a duplicate.
    expect(report.perConsumer.reduce((a, b) => a + b, 0)).toBe(120 + report.duplicates);
    expect(report.polls).toBeGreaterThanOrEqual(2);
    expect(report.allDeliveredMs).toBeGreaterThan(0);
    expect(report.allDeliveredMs).toBeLessThanOrEqual(report.wallMs);
    const client = await env.client();
    expect((await client.listTopics()).filter((t) => t.startsWith('bench-'))).toEqual([]);
  });

  it('refuses out-of-range parameters and embedded-only options before touching the broker', async () => {
    await env.start();
    const broker = `127.0.0.1:${env.broker.address.port}`;
    await expect(runConsumerBench({ broker, records: 0 })).rejects.toThrow(
      new UsageError('records must be an integer 1..9007199254740991, got 0'),
    );
    await expect(runShareBench({ broker, consumers: 65 })).rejects.toThrow(
      new UsageError('consumers must be an integer 1..64, got 65'),
    );
    await expect(runShareBench({ broker, maxWaitMs: 30_001 })).rejects.toThrow(
      new UsageError('max wait must be an integer 0..30000 ms, got 30001'),
    );
    await expect(runShareBench({ broker, records: 10, acks: 'none' })).rejects.toThrow(
      '--acks applies to the embedded broker only; an external broker acks as it is configured',
    );
    await expect(runConsumerBench({ broker, records: 10, brokerExecArgv: ['--cpu-prof'] })).rejects.toThrow(
      'broker profiling applies to the embedded broker only',
    );
  });
});
