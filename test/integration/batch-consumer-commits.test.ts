import { describe, expect, it } from 'vitest';
import { type BatchConsumerEvent, type FetchedRecord, MessageBatch } from '../../src/client/index.js';
import { decodeDlqEnvelope } from '../../src/protocol/dlq-envelope.js';
import { crashableBatchConsumer } from '../helpers/batch-harness.js';
import { committed, ends, fill } from '../helpers/batch-setup.js';
import { ManualClock, until } from '../helpers/sleep-clock.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker({
  topics: [
    { name: 'scans', partitions: 1 },
    { name: 'two', partitions: 2 },
    { name: 'out', partitions: 1 },
  ],
});

async function readAll(topic: string, isolation?: 'read_committed'): Promise<FetchedRecord[]> {
  const reader = await env.client();
  return (await reader.fetch(topic, `reader-${Math.random()}`, { maxRecords: 10_000, isolation })).records;
}

class ClockWithLog extends ManualClock {
  readonly events: BatchConsumerEvent[] = [];
  readonly log = (e: BatchConsumerEvent): void => {
    this.events.push(e);
  };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('batch consumer: watermark commits', () => {
  it('two workers: a stuck batch on one partition never holds back the other partition, and commits at the interval', async () => {
    await env.start();
    const c = await env.client();
    await fill(c, 'two', 40);
    const perPartition = new Map((await c.listOffsets('two')).partitions.map((p) => [p.partition, p.latest]));
    expect([...perPartition.values()].every((v) => v > 0n)).toBe(true);
    const clock = new ClockWithLog();
    const gate = deferred();
    const workersSeen = new Map<number, Set<number>>();
    const bc = c.batchConsumer({
      group: 'sorter',
      topics: 'two',
      workers: 2,
      maxSize: 100,
      timeoutMs: 10,
      commitIntervalMs: 1_000,
      clock,
      onEvent: clock.log,
    });
    const run = bc.run(async (batch: MessageBatch<Buffer>) => {
      for (const i of batch) {
        const set = workersSeen.get(i.transport.partition) ?? new Set();
        set.add(batch.worker);
        workersSeen.set(i.transport.partition, set);
      }
      if (batch[0]!.transport.partition === 1) await gate.promise;
    });
    await until(() => clock.events.filter((e) => e.type === 'accumulating').length === 2, 'both workers to accumulate');
    clock.advance(10);
    await until(() => clock.events.find((e) => e.type === 'batch-done'), 'partition 2 done');
    clock.advance(1_000);
    const first = await until(() => clock.events.find((e) => e.type === 'committed'), 'the interval commit');
    expect(first).toEqual({
      type: 'committed',
      offsets: [{ topic: 'two', partition: 2, offset: perPartition.get(2) }],
    });
    expect(await committed(c, 'sorter', 'two')).toEqual(new Map([[2, perPartition.get(2)]]));
    gate.resolve();
    await until(() => bc.stats.processed === 40, 'partition 1 done');
    await bc.stop();
    await run;
    expect(await committed(c, 'sorter', 'two')).toEqual(perPartition);
    // Partition affinity: each partition went to one worker, and the two partitions to different workers.
    expect([...workersSeen.values()].map((s) => [...s])).toEqual(expect.arrayContaining([[0], [1]]));
  });

  it('after a crash, a new consumer gets exactly the records after the committed watermark', async () => {
    await env.start();
    const c = await env.client();
    await fill(c, 'scans', 30);
    const clock = new ClockWithLog();
    const crashed = await crashableBatchConsumer(env.broker.address.port, {
      group: 'sorter',
      topics: 'scans',
      maxSize: 10,
      commitIntervalMs: 1_000,
      clock,
      onEvent: clock.log,
    });
    const seen: string[] = [];
    const stuck = deferred();
    const run = crashed.consumer.run(async (batch) => {
      seen.push(...batch.items.map((i) => i.transport.value.toString()));
      if (seen.length > 10) await stuck.promise;
    });
    await until(() => seen.length === 20, 'two batches in');
    clock.advance(1_000);
    await until(() => clock.events.find((e) => e.type === 'committed'), 'the commit of batch 1');
    crashed.crash();
    stuck.resolve();
    await expect(run).rejects.toThrow();
    const after = new Map(await committed(c, 'sorter', 'scans'));
    const again: string[] = [];
    const bc = c.batchConsumer({ group: 'sorter', topics: 'scans', maxSize: 100, timeoutMs: 50 });
    const second = bc.run((batch) => {
      again.push(...batch.items.map((i) => i.transport.value.toString()));
    });
    await until(() => again.length === 20, 'the redelivery');
    await bc.stop();
    await second;
    expect(after.size).toBe(1);
    expect(again).toEqual(Array.from({ length: 20 }, (_, i) => `v${i + 10}`));
    expect(await committed(c, 'sorter', 'scans')).toEqual(await ends(c, 'scans'));
  });
});

describe('batch consumer: transactional', () => {
  it('exactly once across a crash mid-transaction: produced records and offsets commit together or not at all', async () => {
    await env.start();
    const c = await env.client();
    await fill(c, 'scans', 30);
    const options = { group: 'reroute', topics: 'scans', maxSize: 10, timeoutMs: 50, transactional: true } as const;
    const crashed = await crashableBatchConsumer(env.broker.address.port, options);
    let batches = 0;
    const inTxn = deferred();
    const hang = deferred();
    const run = crashed.consumer.run(async (batch) => {
      batches++;
      await batch.transaction!.sendBatch(
        'out',
        batch.items.map((i) => ({ key: i.transport.key, value: `out-${i.transport.value.toString()}` })),
      );
      if (batches === 2) {
        inTxn.resolve();
        await hang.promise;
      }
    });
    await inTxn.promise;
    crashed.crash();
    hang.resolve();
    await expect(run).rejects.toThrow();
    // The second batch's records are on disk but aborted; read_committed skips them.
    expect((await readAll('out')).length).toBe(20);
    expect((await readAll('out', 'read_committed')).map((r) => r.value.toString())).toEqual(
      Array.from({ length: 10 }, (_, i) => `out-v${i}`),
    );

    const bc = c.batchConsumer({ ...options });
    const run2 = bc.run(async (batch) => {
      await batch.transaction!.sendBatch(
        'out',
        batch.items.map((i) => ({ key: i.transport.key, value: `out-${i.transport.value.toString()}` })),
      );
    });
    await until(() => bc.stats.processed === 20, 'the rest');
    await bc.stop();
    await run2;
    const out = (await readAll('out', 'read_committed')).map((r) => r.value.toString());
    expect(out).toEqual(Array.from({ length: 30 }, (_, i) => `out-v${i}`));
    expect(await committed(c, 'reroute', 'scans')).toEqual(await ends(c, 'scans'));
  });
});

describe('batch consumer: on a MoonMQ broker', () => {
  it('dead letters carry the NACK envelope (no headers on MoonMQ), keyed by the original key', async () => {
    await env.start();
    env.broker.identity = { name: 'MoonMQ', version: 'v0.01' };
    const c = await env.client();
    expect(c.isCrater).toBe(false);
    await fill(c, 'scans', 2);
    const bc = c.batchConsumer({ group: 'sorter', topics: 'scans', maxSize: 2, retry: { attempts: 0 } });
    const run = bc.run(() => {
      throw new Error('bad scan');
    });
    await until(() => bc.stats.deadLettered === 2, 'the dead letters');
    await bc.stop();
    await run;
    const dlq = await readAll('scans.dlq');
    expect(dlq.map((r) => r.key.toString())).toEqual(['k0', 'k1']);
    const envelope = decodeDlqEnvelope(dlq[1]!.value);
    expect(envelope).toMatchObject({ topic: 'scans', partition: 1, group: 'sorter', attempts: 1, reason: 'bad scan' });
    expect(envelope.value.toString()).toBe('v1');
    expect(envelope.offset).toBeGreaterThan(0n);
  });
});
