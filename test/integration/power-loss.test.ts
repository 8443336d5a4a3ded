/**
 * Power losses at seeded points under durable idempotent, transactional and consumer-offset traffic (issue 11,
 * item 5; the campaign is test/helpers/power-loss-run.ts). After every simulated crash a fresh broker must start on
 * what the disk kept, and:
 *   - every acknowledged record is there exactly once (a transaction: every record of a committed one), and no
 *     record is there twice;
 *   - every record a consumer had seen before the crash is still there (it was durable when served);
 *   - a transaction whose END_TXN was in flight is all there or not at all, an aborted one never visible;
 *   - every acknowledged consumer-offset commit survived and points at a record that survived.
 * CRATER_POWER_LOSS_SEEDS (default 1) sets how many seeds each case runs and CRATER_POWER_LOSS_GAP (default 80) the
 * mean operations between crash points; each run prints how many crash points it explored.
 */
import { describe, expect, it } from 'vitest';
import { type Client, connect } from '../../src/client/client.js';
import type { CrashVariant } from '../helpers/power-loss-fs.js';
import { readAll, runCampaign } from '../helpers/power-loss-run.js';

const SEEDS = Number(process.env.CRATER_POWER_LOSS_SEEDS ?? 1);
// Mean file operations between crash points; CRATER_POWER_LOSS_GAP=20 explores about four times as many.
const GAP = Number(process.env.CRATER_POWER_LOSS_GAP ?? 80);
// One case restarts a broker per crash point; a smaller gap means proportionally more of them.
const CASE_TIMEOUT_MS = 180_000 * Math.max(1, 80 / GAP);
const variants: CrashVariant[] = ['drop', 'prefix', 'torn'];
const cases = variants.flatMap((variant) => Array.from({ length: SEEDS }, (_, i) => [variant, 1 + i] as const));
const BROKER = { acks: 'leader' as const, topics: [{ name: 'orders', partitions: 2 }] };
let explored = 0;

interface IdempotentFacts {
  acked: Set<string>;
  seen: Set<string>;
  /** partition → the last offset whose COMMIT was acknowledged. */
  commits: Map<number, bigint>;
}

const copyIdempotent = (f: IdempotentFacts): IdempotentFacts => ({
  acked: new Set(f.acked),
  seen: new Set(f.seen),
  commits: new Map(f.commits),
});

/** Fetches what is readable as group `live`, commits each partition's last record, until `done()` and nothing is left. */
async function liveConsumer(
  client: Client,
  facts: { seen: Set<string>; commits?: Map<number, bigint> },
  done: () => boolean,
  isolation?: 'read_committed',
): Promise<void> {
  for (;;) {
    const { records } = await client.fetch('orders', 'live', { maxRecords: 50, ...(isolation ? { isolation } : {}) });
    for (const r of records) facts.seen.add(r.value.toString());
    const last = new Map<number, bigint>();
    for (const r of records) last.set(r.partition, r.offset);
    for (const [partition, offset] of last) {
      if (!facts.commits) break;
      await client.commit('orders', partition, offset);
      facts.commits.set(partition, offset);
    }
    if (records.length === 0) {
      if (done()) return;
      // A poll interval for new records, not a wait for something to happen.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
}

function expectExactlyOnce(values: readonly string[], required: Iterable<string>): void {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  const twice = [...counts].filter(([, n]) => n > 1).map(([v]) => v);
  expect(twice, 'records stored twice').toEqual([]);
  const missing = [...required].filter((v) => !counts.has(v));
  expect(missing, 'acknowledged or consumed records lost').toEqual([]);
}

describe('power loss under durable idempotent produce and consumer-offset commits', () => {
  it.each(cases)(
    '%s, seed %i',
    async (variant, seed) => {
      const result = await runCampaign<IdempotentFacts>({
        seed,
        variant,
        gap: GAP,
        broker: BROKER,
        facts: () => ({ acked: new Set(), seen: new Set(), commits: new Map() }),
        copy: copyIdempotent,
        async workload(client, facts) {
          const producer = client.producer({ producerName: 'app' });
          let producing = true;
          const consumer = await connect({ broker: client.address });
          const consuming = liveConsumer(consumer, facts, () => !producing);
          try {
            for (let i = 0; i < 24; i++) {
              if (i % 4 === 3) {
                const values = [0, 1, 2].map((j) => `b${i}.${j}`);
                const result = await producer.sendBatch(
                  'orders',
                  values.map((value) => ({ key: value, value })),
                );
                result.acks.forEach((_, j) => facts.acked.add(values[j]!));
              } else {
                await producer.send('orders', { key: `k${i}`, value: `s${i}` });
                facts.acked.add(`s${i}`);
              }
            }
          } finally {
            producing = false;
            await consuming;
            await consumer.close();
            await producer.close();
          }
        },
        async verify(client, facts, broker) {
          const stored = await readAll(client, 'orders', 'verify');
          expectExactlyOnce(
            stored.map((r) => r.value),
            [...facts.acked, ...facts.seen],
          );
          if (facts.commits.size === 0) return;
          const { offsets } = await client.describeGroup('live');
          for (const [partition, acked] of facts.commits) {
            const at = offsets.find((o) => o.topic === 'orders' && o.partition === partition)?.offset;
            expect(at, `group offset of partition ${partition}`).toBeDefined();
            expect(at!).toBeGreaterThanOrEqual(acked);
            const log = broker.topics.requireTopic('orders').partitions[partition - 1]!;
            const starts = new Set(stored.filter((r) => r.partition === partition).map((r) => r.offset));
            expect(at === log.logEndOffset || starts.has(at!), `committed offset ${at} is a surviving record`).toBe(
              true,
            );
          }
        },
      });
      explored += result.crashPoints;
      console.log(
        `power loss (idempotent + offsets, ${variant}, seed ${seed}): ${result.crashPoints} crash points over ${result.operations} file operations; ${explored} so far`,
      );
      expect(result.crashPoints).toBeGreaterThan(1);
    },
    CASE_TIMEOUT_MS,
  );
});

interface TxnFacts {
  /** Transactions whose commit was acknowledged / that were aborted / whose END_TXN commit was in flight. */
  committed: Set<number>;
  aborted: Set<number>;
  inDoubt: Set<number>;
  seen: Set<string>;
}

const copyTxn = (f: TxnFacts): TxnFacts => ({
  committed: new Set(f.committed),
  aborted: new Set(f.aborted),
  inDoubt: new Set(f.inDoubt),
  seen: new Set(f.seen),
});
const txnValues = (t: number): string[] => [0, 1, 2].map((j) => `t${t}.${j}`);

describe('power loss under transactions', () => {
  it.each(cases)(
    '%s, seed %i',
    async (variant, seed) => {
      const result = await runCampaign<TxnFacts>({
        seed,
        variant,
        gap: GAP,
        broker: BROKER,
        facts: () => ({ committed: new Set(), aborted: new Set(), inDoubt: new Set(), seen: new Set() }),
        copy: copyTxn,
        async workload(client, facts) {
          const producer = client.producer({ producerName: 'tx' });
          let producing = true;
          const consumer = await connect({ broker: client.address });
          const consuming = liveConsumer(consumer, facts, () => !producing, 'read_committed');
          try {
            for (let t = 0; t < 9; t++) {
              await producer.beginTransaction();
              for (const value of txnValues(t)) await producer.send('orders', { key: value, value });
              if (t % 3 === 2) {
                await producer.abortTransaction();
                facts.aborted.add(t);
              } else {
                facts.inDoubt.add(t);
                await producer.commitTransaction();
                facts.inDoubt.delete(t);
                facts.committed.add(t);
              }
            }
          } finally {
            producing = false;
            await consuming;
            await consumer.close();
            await producer.close();
          }
        },
        async verify(client, facts) {
          const stored = (await readAll(client, 'orders', 'verify', 'read_committed')).map((r) => r.value);
          expectExactlyOnce(stored, [...[...facts.committed].flatMap(txnValues), ...facts.seen]);
          const present = new Set(stored);
          for (const t of facts.aborted)
            expect(
              txnValues(t).filter((v) => present.has(v)),
              `aborted transaction ${t}`,
            ).toEqual([]);
          for (const t of facts.inDoubt) {
            const there = txnValues(t).filter((v) => present.has(v)).length;
            expect([0, 3], `transaction ${t} in flight at the crash is all or nothing`).toContain(there);
          }
        },
      });
      explored += result.crashPoints;
      console.log(
        `power loss (transactions, ${variant}, seed ${seed}): ${result.crashPoints} crash points over ${result.operations} file operations; ${explored} so far`,
      );
      expect(result.crashPoints).toBeGreaterThan(1);
    },
    CASE_TIMEOUT_MS,
  );
});
