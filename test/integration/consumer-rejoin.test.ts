/**
 * A joined consumer whose membership lapsed rejoins because the error-code table says so (ERR 12's rule is
 * `rejoin`), not because it names the code: after a refused heartbeat, and inside a COMMIT or NACK, which it then
 * resends when the partition is its own again. The broker evicts the member through its own reaper, the way a
 * member that missed its session timeout is evicted; the consumers check their share only when told
 * (rebalanceCheckMs 0), so nothing but the error's rule can bring them back.
 */
import { describe, expect, it } from 'vitest';
import { consumerRuntimeOf } from '../../src/broker/consumer/index.js';
import type { Client, Consumer, FetchedRecord } from '../../src/client/index.js';
import { BrokerError } from '../../src/errors.js';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { until } from '../helpers/eventually.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker({ topics: [{ name: 'orders', partitions: 4 }] });
const PER_PARTITION = 30;
const TOTAL = 4 * PER_PARTITION;

async function setup(): Promise<Client> {
  await env.start();
  const c = await env.client();
  await c.produceBatch(
    'orders',
    Array.from({ length: TOTAL }, (_, i) => ({ key: `k${i}`, value: `v${i}` })),
  );
  return c;
}

/** Ages the member past the 30 s session and runs the broker's reaper, which evicts it. */
function evict(group: string, memberId: string): void {
  const rt = consumerRuntimeOf(env.broker);
  const member = rt.groups.get(group)!.members.get(memberId)!;
  member.lastHeartbeatMs -= 31_000;
  rt.reap();
  expect(rt.groups.get(group)?.members.has(memberId) ?? false).toBe(false);
}

const members = async (c: Client, group: string): Promise<string[]> =>
  (await c.describeGroup(group)).members.map((m) => m.memberId).sort();

/** Polls `consumer` into `seen` until it holds every record; then checks each partition went out once, in order. */
async function drain(c: Client, consumer: Consumer, seen: FetchedRecord[]): Promise<void> {
  await until(
    async () => {
      seen.push(...(await consumer.poll({ maxPerPartition: 20 })));
      return seen.length >= TOTAL ? true : undefined;
    },
    { what: () => `every record (${seen.length} of ${TOTAL})` },
  );
  const census = (await c.fetch('orders', 'census', { maxRecords: 100_000 })).records;
  expect(seen).toHaveLength(TOTAL);
  for (const p of [1, 2, 3, 4])
    expect(
      seen.filter((r) => r.partition === p).map((r) => r.offset),
      `partition ${p}`,
    ).toEqual(census.filter((r) => r.partition === p).map((r) => r.offset));
}

describe('a joined consumer whose membership lapsed', () => {
  it('rejoins under its id after a heartbeat refused with ERR 12, and reads on where it stopped', async () => {
    const c = await setup();
    const heartbeatErrors: Error[] = [];
    const a = await c.consumer({
      group: 'hb',
      topics: 'orders',
      join: { memberId: 'a', heartbeatIntervalMs: 20, onHeartbeatError: (e) => void heartbeatErrors.push(e) },
      rebalanceCheckMs: 0,
    });
    const seen = await a.poll({ maxPerPartition: 5 });
    expect(seen).toHaveLength(20);
    evict('hb', 'a');
    await until(() => (heartbeatErrors.length > 0 ? true : undefined), { what: 'a refused heartbeat' });
    expect(heartbeatErrors[0]).toBeInstanceOf(BrokerError);
    expect((heartbeatErrors[0] as BrokerError).errorCode).toBe(ErrorCode.GROUP_MEMBER_UNKNOWN);
    await until(async () => ((await members(c, 'hb')).length === 1 ? true : undefined), { what: 'the rejoin' });
    expect(await members(c, 'hb')).toEqual(['a']);
    await drain(c, a, seen);
    await a.close();
  });

  it('rejoins inside a COMMIT or NACK refused with ERR 12 and resends it: the offset lands, nothing is lost', async () => {
    const c = await setup();
    const a = await c.consumer({
      group: 'cm',
      topics: 'orders',
      join: { memberId: 'a', heartbeatIntervalMs: 60_000 },
      rebalanceCheckMs: 0,
    });
    const seen = await a.poll({ maxPerPartition: 5 });
    const p1 = seen.filter((r) => r.partition === 1);
    expect(p1).toHaveLength(5);
    evict('cm', 'a');
    // A commit below the delivery commit, so the group's offset shows this COMMIT landed (it leaves the cursor).
    await a.commit('orders', 1, p1[2]!.offset + 1n);
    expect(await members(c, 'cm')).toEqual(['a']);
    expect((await c.describeGroup('cm')).offsets.find((o) => o.partition === 1)?.offset).toBe(p1[2]!.offset + 1n);

    evict('cm', 'a');
    const nacked = await a.nack('orders', 2, seen.find((r) => r.partition === 2)!.offset, 'retry it');
    expect(nacked.deadLettered).toBe(false);
    expect(await members(c, 'cm')).toEqual(['a']);
    const redelivered = (await a.poll({ maxPerPartition: 1 })).filter((r) => r.partition === 2);
    expect(redelivered.map((r) => r.offset)).toEqual([seen.find((r) => r.partition === 2)!.offset]);
    await a.close();
  });

  it('lets the ERR 12 stand when the rejoin gave the partition to another member, whose offset stays', async () => {
    const c = await setup();
    const opts = (memberId: string) => ({
      group: 'two',
      topics: 'orders',
      join: { memberId, heartbeatIntervalMs: 60_000 },
      rebalanceCheckMs: 0,
    });
    const a = await c.consumer(opts('a'));
    const b = await c.consumer(opts('b'));
    await a.checkAssignment();
    await a.poll({ maxPerPartition: 1 });
    const bShare = b.assignment!.topics.flatMap((t) => t.partitions);
    expect(bShare).toEqual([3, 4]);
    const bRecords = await b.poll({ maxPerPartition: 3 });
    expect(bRecords.filter((r) => r.partition === 3)).toHaveLength(3);
    const before = (await c.describeGroup('two')).offsets.find((o) => o.partition === 3)?.offset;
    evict('two', 'a');
    const error = await a.commit('orders', 3, 0n).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrokerError);
    expect((error as BrokerError).errorCode).toBe(ErrorCode.GROUP_MEMBER_UNKNOWN);
    expect(await members(c, 'two')).toEqual(['a', 'b']);
    expect((await c.describeGroup('two')).offsets.find((o) => o.partition === 3)?.offset).toBe(before);
    // Its own partition again after the rejoin: that commit goes through at once.
    await a.commit('orders', 1, 1n);
    await b.close();
    await a.close();
  });
});
