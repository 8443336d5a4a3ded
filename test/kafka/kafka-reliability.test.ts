/**
 * Reliability on the real cluster: one of the three brokers is SIGKILLed while records are in flight, on a topic with
 * replication factor 3 and min.insync.replicas 2 (the cluster's defaults, scripts/kafka-cluster.sh), and restarted
 * afterwards so the suite's later files find a full cluster again.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { FetchedRecord } from '../../src/client/backend.js';
import type { KafkaBackend } from '../../src/client/kafka/kafka-backend.js';
import { alterGroupOffsets } from '../../src/client/kafka/kafka-admin.js';
import { cluster, noKafka, openKafka, pollUntil, uniqueName, waitForIsr } from './helpers.js';

/** Node id (1..3) leading partition `partition` of `topic`. */
async function leaderOf(kafka: KafkaBackend, topic: string, partition: number): Promise<1 | 2 | 3> {
  const metadata = await kafka.admin.metadata({ topics: [topic], forceUpdate: true });
  return metadata.topics.get(topic)!.partitions[partition]!.leader as 1 | 2 | 3;
}

/** Every record of `topic` for a fresh group, read_committed, until `expected` arrived and a fetch came back empty. */
async function readAll(topic: string, expected: number): Promise<FetchedRecord[]> {
  const reader = await openKafka();
  try {
    const group = uniqueName('verify');
    const records: FetchedRecord[] = [];
    await pollUntil(
      `reading ${expected} records of ${topic}`,
      async () => {
        const { records: got } = await reader.fetch(topic, group, {
          maxRecords: 1000,
          isolation: 'read_committed',
          timeoutMs: 2000,
        });
        records.push(...got);
        return got.length === 0 && records.length >= expected ? true : undefined;
      },
      90_000,
    );
    return records;
  } finally {
    await reader.close();
  }
}

describe.skipIf(noKafka)('Kafka with a broker SIGKILLed mid-stream', () => {
  let kafka: KafkaBackend;
  beforeAll(async () => {
    kafka = await openKafka();
    return () => kafka.close();
  });

  it(
    'an idempotent acks=all producer: every acknowledged record is there exactly once, read back read_committed',
    { timeout: 240_000 },
    async () => {
      const topic = uniqueName('rel-idem');
      await kafka.createTopic(topic, 3);
      await waitForIsr(kafka, topic, 3);
      const victim = await leaderOf(kafka, topic, 0);
      const producer = kafka.producer({ idempotent: true });
      const acked: string[] = [];
      const failedBatches: string[][] = [];
      let killed: Promise<void> | undefined;
      try {
        for (let b = 0; b < 40; b++) {
          const values = Array.from({ length: 50 }, (_, i) => `b${b}-r${i}`);
          // The kill is issued while batch 10 is on its way, not between two batches.
          const sent = producer.sendBatch(
            topic,
            values.map((value, i) => ({ key: `k${i}`, value })),
          );
          if (b === 10) killed = cluster('kill', victim);
          try {
            const { acks } = await sent;
            expect(acks).toHaveLength(values.length);
            acked.push(...values);
          } catch {
            failedBatches.push(values);
          }
        }
        await killed;
      } finally {
        await producer.close();
        await cluster('restart', victim);
      }
      expect(acked.length).toBeGreaterThanOrEqual(30 * 50);

      const records = await readAll(topic, acked.length);
      const values = records.map((r) => r.value.toString());
      const counts = new Map<string, number>();
      for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
      expect([...counts].filter(([, n]) => n > 1)).toEqual([]);
      for (const v of acked) expect(counts.get(v), v).toBe(1);
      // A batch whose ack was lost may have landed; it is then there once too (checked above), never partly twice.
      expect(values.length).toBeLessThanOrEqual(acked.length + failedBatches.flat().length);
      await waitForIsr(kafka, topic, 3);
    },
  );

  it(
    'a transactional consume-transform-produce across a broker kill: each source record once in the sink',
    { timeout: 240_000 },
    async () => {
      const source = uniqueName('rel-src');
      const sink = uniqueName('rel-sink');
      const group = uniqueName('ctp');
      await kafka.createTopic(source, 2);
      await kafka.createTopic(sink, 2);
      const input = Array.from({ length: 400 }, (_, i) => `v${i}`);
      await kafka.produceBatch(
        source,
        input.map((value) => ({ key: value, value })),
      );
      await waitForIsr(kafka, sink, 3);
      const victim = await leaderOf(kafka, sink, 0);

      // One transactional.id for the whole job: a new session after a failure fences the old one and aborts what it
      // left open, which is Kafka's recovery model for consume-transform-produce.
      const transactionalId = uniqueName('ctp-tx');
      let transactions = 0;
      let failures = 0;
      let consumed = 0;
      let victimDown = false;
      try {
        for (let attempt = 0; consumed < input.length && attempt < 4; attempt++) {
          const consumer = await openKafka();
          const producer = consumer.producer({ producerName: transactionalId });
          let rewind: Map<number, bigint> | undefined;
          try {
            while (consumed < input.length) {
              const { records } = await consumer.fetch(source, group, {
                maxRecords: 40,
                isolation: 'read_committed',
                timeoutMs: 5000,
              });
              if (records.length === 0) continue;
              const next = new Map<number, bigint>();
              const first = new Map<number, bigint>();
              for (const r of records) {
                next.set(r.partition, r.offset + 1n);
                if (!first.has(r.partition)) first.set(r.partition, r.offset);
              }
              try {
                await producer.beginTransaction();
                if (transactions === 3 && !victimDown) {
                  await cluster('kill', victim);
                  victimDown = true;
                }
                await producer.sendBatch(
                  sink,
                  records.map((r) => ({ key: r.key, value: r.value.toString().toUpperCase() })),
                );
                await producer.sendOffsetsToTransaction(
                  group,
                  [...next].map(([partition, offset]) => ({ topic: source, partition, offset })),
                );
                await producer.commitTransaction();
                transactions += 1;
                consumed += records.length;
              } catch {
                // Nothing of the failed transaction becomes visible; its records go back to the group for the next session.
                failures += 1;
                if (producer.transactionState !== 'none') await producer.abortTransaction().catch(() => undefined);
                rewind = first;
                break;
              }
            }
          } finally {
            await producer.close();
            await consumer.close();
          }
          // fetch committed past the failed transaction's records; with the member gone, put the group back on them.
          const back = rewind;
          if (back) {
            const offsets = [...back].map(([partition, offset]) => ({ partition, offset }));
            await pollUntil(
              'group rewound',
              async () => (await alterGroupOffsets(kafka.admin, group, source, offsets), true),
            );
          }
        }
      } finally {
        if (victimDown) await cluster('restart', victim);
      }
      expect(victimDown).toBe(true);
      expect(consumed).toBe(input.length);
      expect(transactions).toBeGreaterThan(3);
      expect(failures).toBeLessThan(4);
      const out = (await readAll(sink, input.length)).map((r) => r.value.toString()).sort();
      expect(out).toEqual(input.map((v) => v.toUpperCase()).sort());
      const committed = (await kafka.describeGroup(group)).offsets.reduce((n, o) => n + o.offset, 0n);
      expect(committed).toBe(BigInt(input.length));
      await waitForIsr(kafka, sink, 3);
    },
  );
});
