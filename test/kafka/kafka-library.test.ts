/**
 * The library's consumers and accumulator on the real 3-node Kafka cluster, through the backend seam: the same
 * `consumer()`, `batchConsumer()` and `accumulator()` calls as on MoonMQ, with Kafka's units (partitions from 0,
 * offsets as record counts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { FetchedRecord } from '../../src/client/backend.js';
import type { KafkaBackend } from '../../src/client/kafka/kafka-backend.js';
import { until } from '../helpers/eventually.js';
import { noKafka, openKafka, pollUntil, uniqueName } from './helpers.js';

describe.skipIf(noKafka)('the library on Kafka', () => {
  let kafka: KafkaBackend;
  beforeAll(async () => {
    kafka = await openKafka();
    // Returned, so it runs only once the backend exists.
    return async () => {
      await kafka.close();
    };
  });

  it('consumer() polls as a group member, commits past each poll, and commit() moves a partition back', async () => {
    const topic = uniqueName('lib-consumer');
    const group = uniqueName('lc');
    await kafka.createTopic(topic, 2);
    await kafka.produceBatch(topic, [{ value: 'a' }, { value: 'b' }, { value: 'c' }], { partition: 0 });
    await kafka.produceBatch(topic, [{ value: 'd' }], { partition: 1 });

    const first = await kafka.consumer({ group, topics: topic });
    expect((await kafka.describeGroup(group)).members).toHaveLength(1);
    const got: FetchedRecord[] = [];
    await until(
      async () => {
        got.push(...(await first.poll({ maxRecords: 10 })));
        return got.length >= 4 ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 0, what: () => `4 records polled (${got.length} so far)` },
    );
    expect(got.map((r) => `${r.partition}:${r.offset}:${r.value.toString()}`).sort()).toEqual([
      '0:0:a',
      '0:1:b',
      '0:2:c',
      '1:0:d',
    ]);
    await first.commit(topic, 0, 1n);
    await first.close();
    expect((await kafka.describeGroup(group)).offsets.map((o) => [o.partition, o.offset])).toEqual([
      [0, 1n],
      [1, 1n],
    ]);

    const second = await kafka.consumer({ group, topics: [topic] });
    const again: string[] = [];
    for await (const r of second) {
      again.push(r.value.toString());
      if (again.length === 2) break;
    }
    expect(again).toEqual(['b', 'c']);
  });

  it('batchConsumer() runs unchanged: batches, per-item retry and dead letter, commits, and a restart resumes', async () => {
    const topic = uniqueName('lib-batch');
    const group = uniqueName('lb');
    await kafka.createTopic(topic, 2);
    const records = Array.from({ length: 10 }, (_, i) => ({ key: `k${i % 3}`, value: `v${i}` }));
    await kafka.produceBatch(topic, records);

    const seen: string[] = [];
    let retried = false;
    const bc = kafka.batchConsumer({ group, topics: topic, maxSize: 4, timeoutMs: 200, commitIntervalMs: 200 });
    const running = bc.run((batch) => {
      const results = [];
      for (const item of batch) {
        const value = item.transport.value.toString();
        if (value === 'v3' && !retried) {
          retried = true;
          results.push({ item, outcome: 'retry' as const, reason: 'once' });
          continue;
        }
        seen.push(value);
        if (value === 'v7') results.push({ item, outcome: 'dead-letter' as const, reason: 'seven' });
      }
      return results;
    });
    await pollUntil('every record handled', async () => (seen.length >= 10 ? true : undefined));
    await bc.stop();
    await running;
    expect([...seen].sort()).toEqual(records.map((r) => r.value).sort());
    expect(bc.stats).toMatchObject({ records: 10, retries: 1, deadLettered: 1 });
    const committed = (await kafka.describeGroup(group)).offsets;
    expect(committed.reduce((n, o) => n + o.offset, 0n)).toBe(10n);
    const dlq = await kafka.listOffsets(`${topic}.dlq`);
    expect(dlq.partitions.reduce((n, p) => n + p.latest, 0n)).toBe(1n);

    // A second run sees only what arrived since: the group was committed past every finished record.
    await kafka.produceBatch(topic, [{ value: 'later' }]);
    const next: string[] = [];
    const bc2 = kafka.batchConsumer({ group, topics: [topic], maxSize: 4, timeoutMs: 200 });
    const running2 = bc2.run((batch) => {
      for (const item of batch) next.push(item.transport.value.toString());
    });
    await pollUntil('the new record handled', async () => (next.length >= 1 ? true : undefined));
    await bc2.stop();
    await running2;
    expect(next).toEqual(['later']);
  });

  it('accumulator() batches per topic-partition: Java key placement, contiguous offsets, Kafka-named metrics', async () => {
    const topic = uniqueName('lib-acc');
    await kafka.createTopic(topic, 3);
    const producer = kafka.accumulator({ lingerMs: 20 });
    const acks = await Promise.all(
      Array.from({ length: 300 }, (_, i) => producer.send(topic, { key: `key-${i % 5}`, value: `v${i}` })),
    );
    const metrics = producer.metrics();
    await producer.close();
    // One key, one partition; each partition's offsets are 0..n-1 with none twice.
    const byKey = new Map<string, Set<number>>();
    acks.forEach((a, i) => byKey.set(`key-${i % 5}`, (byKey.get(`key-${i % 5}`) ?? new Set()).add(a.partition)));
    for (const partitions of byKey.values()) expect(partitions.size).toBe(1);
    const byPartition = new Map<number, bigint[]>();
    for (const a of acks) byPartition.set(a.partition, [...(byPartition.get(a.partition) ?? []), a.offset]);
    for (const offsets of byPartition.values()) {
      const sorted = [...offsets].sort((x, y) => (x < y ? -1 : 1));
      expect(sorted).toEqual(sorted.map((_, i) => BigInt(i)));
    }
    const { partitions } = await kafka.listOffsets(topic);
    expect(partitions.reduce((n, p) => n + p.latest, 0n)).toBe(300n);
    expect(metrics['record-send-total']).toBe(300);
    expect(metrics['batch-records-avg']).toBeGreaterThan(1);

    const fixed = kafka.accumulator({ partition: 2 });
    const ack = await fixed.send(topic, { key: 'key-0', value: 'fixed' });
    await fixed.close();
    expect(ack.partition).toBe(2);
  });

  it('an idempotent producer starts a new session after a failed send, so no later batch reuses its sequences', async () => {
    const topic = uniqueName('lib-renew');
    await kafka.createTopic(topic, 1);
    const producer = kafka.producer({ idempotent: true });
    try {
      await producer.send(topic, { value: 'before' });
      const first = producer.identity!;
      // Over the broker's message.max.bytes (1 MiB): refused by the partition leader, a failure from the cluster.
      await expect(producer.send(topic, { value: Buffer.alloc(2 * 1024 * 1024) })).rejects.toThrow();
      const ack = await producer.send(topic, { value: 'after' });
      const second = producer.identity!;
      // Had the refused batch landed with its reply lost, the old session's next batch would carry its sequence
      // numbers and be taken for a resend of it: acknowledged with its offsets, and dropped.
      expect(second.producerId).not.toBe(first.producerId);
      expect(ack.offset).toBe(1n);
    } finally {
      await producer.close();
    }
  });
});
