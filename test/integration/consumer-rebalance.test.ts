import { describe, expect, it } from 'vitest';
import type { Client, Consumer, FetchedRecord, RebalanceEvent } from '../../src/client/index.js';
import { until } from '../helpers/eventually.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker({ topics: [{ name: 'orders', partitions: 4 }] });
const PER_PARTITION = 60;

/** The broker with 4 × PER_PARTITION records spread over `orders` by key; `ends`: each partition's end offset. */
async function setup(options?: Parameters<typeof env.start>[0]): Promise<{ c: Client; ends: Map<number, bigint> }> {
  await env.start(options);
  const c = await env.client();
  await c.produceBatch(
    'orders',
    Array.from({ length: 4 * PER_PARTITION }, (_, i) => ({ key: `k${i}`, value: `v${i}` })),
  );
  const ends = new Map((await c.listOffsets('orders')).partitions.map((p) => [p.partition, p.latest]));
  expect([...ends.keys()].sort()).toEqual([1, 2, 3, 4]);
  return { c, ends };
}

const owned = (c: Consumer): number[] => c.assignment!.topics.flatMap((t) => t.partitions);

/** Who got each record, and each partition's offsets in the order they were handed out (across members). */
class Ledger {
  readonly by = new Map<string, string>();
  readonly order = new Map<number, bigint[]>();
  take(who: string, records: readonly FetchedRecord[]): FetchedRecord[] {
    for (const r of records) {
      this.by.set(`${r.partition}@${r.offset}`, who);
      const seq = this.order.get(r.partition) ?? [];
      seq.push(r.offset);
      this.order.set(r.partition, seq);
    }
    return [...records];
  }
  last(p: number): bigint {
    return this.order.get(p)!.at(-1)!;
  }
  get size(): number {
    return [...this.order.values()].reduce((n, seq) => n + seq.length, 0);
  }
}

describe('client.consumer() follows rebalances', () => {
  it('a second member joining revokes half the partitions, its leaving assigns them back; every record once', async () => {
    const { c, ends } = await setup();
    const total = 4 * PER_PARTITION;
    const ledger = new Ledger();
    const events: RebalanceEvent[] = [];
    const committedAtRevoke = new Map<number, bigint>();
    const a = await c.consumer({
      group: 'rb',
      topics: 'orders',
      join: true,
      rebalanceCheckMs: 0,
      onRebalance: async (e) => {
        events.push(e);
        // Before A fetches again, the group's offsets of what it gives up stand just past what it was handed.
        const offsets = (await c.describeGroup('rb')).offsets;
        for (const tp of e.revoked)
          committedAtRevoke.set(tp.partition, offsets.find((o) => o.partition === tp.partition)!.offset);
      },
    });
    expect(a.generation).toBe(1);
    expect(owned(a)).toEqual([1, 2, 3, 4]);
    ledger.take('a', await a.poll({ maxPerPartition: 10 }));
    expect(await a.checkAssignment()).toBe(false);

    const b = await c.consumer({ group: 'rb', topics: 'orders', join: true, rebalanceCheckMs: 0 });
    const bShare = owned(b);
    expect(bShare).toHaveLength(2);
    expect(await a.checkAssignment()).toBe(true);
    const afterJoin = ledger.take('a', await a.poll({ maxPerPartition: 10 }));
    expect(a.generation).toBe(2);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ generation: 2, assigned: [] });
    expect(events[0]!.revoked.map((tp) => tp.partition)).toEqual(bShare);
    const aShare = owned(a);
    expect([...aShare, ...bShare].sort()).toEqual([1, 2, 3, 4]);
    expect(afterJoin.length).toBeGreaterThan(0);
    for (const r of afterJoin) expect(aShare).toContain(r.partition);
    for (const p of bShare) expect(committedAtRevoke.get(p)).toBeGreaterThan(ledger.last(p));

    // B resumes each partition it got exactly where A stopped: at the offset committed when A gave it up.
    const firstOfB = ledger.take('b', await b.poll({ maxPerPartition: 10 }));
    for (const p of bShare) {
      const first = firstOfB.find((r) => r.partition === p);
      expect(first?.offset, `partition ${p}`).toBe(committedAtRevoke.get(p));
    }
    await b.close();

    expect(await a.checkAssignment()).toBe(true);
    const rest = await until(
      async () => {
        ledger.take('a', await a.poll({ maxPerPartition: 50 }));
        return ledger.size >= total ? true : undefined;
      },
      { what: () => `every record (${ledger.size} of ${total})` },
    );
    expect(rest).toBe(true);
    expect(a.generation).toBe(3);
    expect(events[1]).toMatchObject({ generation: 3, revoked: [] });
    expect(events[1]!.assigned.map((tp) => tp.partition)).toEqual(bShare);
    // Each partition's records went out in log order across A, B and A again: nothing twice, nothing skipped.
    const census = (await c.fetch('orders', 'census', { maxRecords: 100_000 })).records;
    expect(census).toHaveLength(total);
    for (const p of ends.keys())
      expect(ledger.order.get(p), `partition ${p}`).toEqual(
        census.filter((r) => r.partition === p).map((r) => r.offset),
      );
    for (const p of bShare) {
      const who = ledger.order.get(p)!.map((o) => ledger.by.get(`${p}@${o}`));
      expect(new Set(who), `partition ${p} went A, then B, then A`).toEqual(new Set(['a', 'b']));
      expect(who.at(-1)).toBe('a');
    }
    await a.close();
    const final = await c.describeGroup('rb');
    for (const [p, end] of ends) expect(final.offsets.find((o) => o.partition === p)?.offset).toBe(end);
  });

  it('notices a rebalance on its own timer and applies it before the next poll', async () => {
    const { c } = await setup();
    const seen: RebalanceEvent[] = [];
    const a = await c.consumer({
      group: 'rb-timer',
      topics: 'orders',
      join: true,
      rebalanceCheckMs: 20,
      onRebalance: (e) => void seen.push(e),
    });
    const b = await c.consumer({ group: 'rb-timer', topics: 'orders', join: true, rebalanceCheckMs: 20 });
    await until(async () => {
      await a.poll({ maxPerPartition: 1 });
      return a.generation === 2 ? true : undefined;
    });
    expect(seen[0]!.revoked.map((tp) => tp.partition)).toEqual(owned(b));
    expect(owned(a)).toHaveLength(2);
    await b.close();
    await a.close();
  });

  it('a member the broker evicted joins again under its id on its next check, and reads again', async () => {
    const { c } = await setup({ consumer: { sessionTimeoutMs: 200, reaperIntervalMs: 20 } });
    const a = await c.consumer({
      group: 'rb-gone',
      topics: 'orders',
      join: { heartbeatIntervalMs: 60_000 },
      rebalanceCheckMs: 0,
    });
    const id = a.assignment!.memberId;
    expect((await a.poll({ maxPerPartition: 1 })).length).toBe(4);
    // No heartbeat within the session: the reaper evicts A, which then owns nothing.
    await until(async () => ((await c.describeGroup('rb-gone')).members.length === 0 ? true : undefined));
    await a.checkAssignment();
    expect((await c.describeGroup('rb-gone')).members.map((m) => m.memberId)).toEqual([id]);
    expect((await a.poll({ maxPerPartition: 1 })).length).toBe(4);
    expect(a.assignment!.memberId).toBe(id);
    expect(owned(a)).toEqual([1, 2, 3, 4]);
    await a.close();
  });
});
