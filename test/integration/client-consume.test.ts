import { describe, expect, it } from 'vitest';
import type { Client, FetchedRecord } from '../../src/client/index.js';
import { until } from '../helpers/eventually.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker({
  topics: [
    { name: 'orders', partitions: 4 },
    { name: 'one', partitions: 1 },
  ],
});

async function setup(): Promise<Client> {
  await env.start();
  return env.client();
}

const values = (records: FetchedRecord[]) => records.map((r) => r.value.toString());
const fill = (c: Client, topic: string, n: number, prefix = 'v') =>
  c.produceBatch(
    topic,
    Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `${prefix}${i}` })),
  );

describe('client: fetch against the broker', () => {
  it('a batched fetch of 10 records is 2 frames; an unbatched one is 11; both return the same records', async () => {
    const c = await setup();
    await fill(c, 'one', 20);
    const batched = await c.fetch('one', 'g1', { maxRecords: 10 });
    expect(batched).toMatchObject({ shape: 'batch', frames: 2 });
    expect(values(batched.records)).toEqual(Array.from({ length: 10 }, (_, i) => `v${i}`));

    const other = await env.client();
    const legacy = await other.fetch('one', 'g2', { maxRecords: 10, batched: false, raw: true });
    expect(legacy).toMatchObject({ shape: 'legacy', frames: 11 });
    expect(legacy.rawFrames).toHaveLength(11);
    expect(values(legacy.records)).toEqual(values(batched.records));
  });

  it('resumes where the last fetch stopped, and commit moves the group cursor', async () => {
    const c = await setup();
    await fill(c, 'one', 6);
    const first = await c.fetch('one', 'g', { maxRecords: 3 });
    expect(values(first.records)).toEqual(['v0', 'v1', 'v2']);
    const second = await c.fetch('one', 'g', { maxRecords: 3 });
    expect(values(second.records)).toEqual(['v3', 'v4', 'v5']);
    expect((await c.fetch('one', 'g')).records).toEqual([]);

    // Rewind the group to the second record (a record's own offset is "next to read" for a commit). The broker
    // keeps its in-memory cursor while the group has connections, so the rewind shows once they have closed.
    await c.commit('one', 1, first.records[1]!.offset);
    await c.close();
    const reconnected = await env.client();
    const replay = await until(async () => {
      const r = await reconnected.fetch('one', 'g', { maxRecords: 100 });
      return r.records.length > 0 ? r : undefined;
    });
    expect(values(replay.records)).toEqual(['v1', 'v2', 'v3', 'v4', 'v5']);
  });

  it('shares max_records evenly across partitions (12 over 4 gives at most 3 each)', async () => {
    const c = await setup();
    await fill(c, 'orders', 200);
    const { records } = await c.fetch('orders', 'g', { maxRecords: 12 });
    expect(records).toHaveLength(12);
    const perPartition = new Map<number, number>();
    for (const r of records) perPartition.set(r.partition, (perPartition.get(r.partition) ?? 0) + 1);
    for (const n of perPartition.values()) expect(n).toBeLessThanOrEqual(3);
  });

  it('round-trips binary keys, values and headers byte for byte', async () => {
    const c = await setup();
    const key = Buffer.from([0x00, 0xff, 0x0a, 0x80]);
    const value = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const headers = [
      { name: 'trace', value: Buffer.from([0, 1, 2, 0xff]) },
      { name: 'trace', value: Buffer.alloc(0) },
      { name: 'ünï', value: Buffer.alloc(65_536, 0xab) },
    ];
    await c.produceBatch('one', [
      { key, value, headers },
      { key: Buffer.alloc(0), value: Buffer.from([7]) },
    ]);
    const { records } = await c.fetch('one', 'g', { headers: true });
    expect(records).toHaveLength(2);
    expect(records[0]!.key.equals(key)).toBe(true);
    expect(records[0]!.value.equals(value)).toBe(true);
    expect(records[0]!.headers).toEqual(headers);
    expect(records[1]!.headers).toEqual([]);
  });
});

describe('client: subscriptions, consumers, groups and nack against the broker', () => {
  it('subscribe yields pushed records and breaking out closes the subscription connection', async () => {
    const c = await setup();
    const sub = c.subscribe('one', 'push-group');
    await sub.ready();
    await fill(c, 'one', 5);
    const seen: string[] = [];
    for await (const record of sub) {
      seen.push(record.value.toString());
      if (seen.length === 5) break;
    }
    expect(seen).toEqual(['v0', 'v1', 'v2', 'v3', 'v4']);
    // Only the client's own connection is left once the subscription's is gone.
    await until(async () => (env.broker.connectionCount === 1 ? true : undefined));
  });

  it('a subscription to a missing topic fails its iteration with the broker error', async () => {
    const c = await setup();
    const sub = c.subscribe('missing', 'g');
    await expect(sub.ready()).rejects.toMatchObject({ errorName: 'ERR_TOPIC_MISSING' });
    await expect(sub[Symbol.asyncIterator]().next()).rejects.toMatchObject({ errorName: 'ERR_TOPIC_MISSING' });
    await sub.close();
  });

  it('Consumer.poll takes maxPerPartition per partition (default 1), and iterates until left', async () => {
    const c = await setup();
    await fill(c, 'orders', 40);
    const consumer = await c.consumer({ group: 'cg', topics: 'orders' });
    const one = await consumer.poll();
    expect(one).toHaveLength(4);
    expect(new Set(one.map((r) => r.partition)).size).toBe(4);
    const two = await consumer.poll({ maxPerPartition: 2 });
    expect(two).toHaveLength(8);
    const capped = await consumer.poll({ maxPerPartition: 5, maxRecords: 4 });
    expect(capped).toHaveLength(4);
    const rest: FetchedRecord[] = [];
    for await (const record of consumer) {
      rest.push(record);
      if (rest.length === 40 - 16) break;
    }
    expect(new Set([...one, ...two, ...capped, ...rest].map((r) => r.value.toString())).size).toBe(40);
    await consumer.close();
  });

  it('joins, heartbeats, describes, lists, leaves and deletes a group', async () => {
    const c = await setup();
    const assignment = await c.joinGroup('team', ['orders'], { heartbeatIntervalMs: 20 });
    expect(assignment.memberId).not.toBe('');
    expect(assignment.topics).toEqual([{ topic: 'orders', partitions: [1, 2, 3, 4] }]);
    const failures: unknown[] = [];
    c.on((e) => e.type === 'heartbeat-failed' && failures.push(e.error));

    const described = await until(async () => {
      const d = await c.describeGroup('team');
      return d.state === 'stable' ? d : undefined;
    });
    expect(described.members.map((m) => m.memberId)).toEqual([assignment.memberId]);
    expect((await c.listGroups()).map((g) => g.groupId)).toContain('team');
    expect(failures).toEqual([]);

    await c.leaveGroup('team');
    await c.deleteGroup('team');
    expect((await c.listGroups()).map((g) => g.groupId)).not.toContain('team');
  });

  it('a joined consumer polls only its assignment', async () => {
    const c = await setup();
    await fill(c, 'orders', 40);
    const a = await c.consumer({ group: 'split', topics: ['orders'], join: true });
    const b = await c.consumer({ group: 'split', topics: ['orders'], join: true });
    const owned = await until(async () => {
      const d = await c.describeGroup('split');
      return d.state === 'stable' && d.members.length === 2 ? d : undefined;
    });
    const bMember = owned.members.find((m) => m.memberId === b.assignment!.memberId)!;
    const bPartitions = bMember.topics[0]!.partitions;
    expect(bPartitions.length).toBe(2);
    const polled = await b.poll({ maxPerPartition: 50 });
    expect(polled.length).toBeGreaterThan(0);
    for (const r of polled) expect(bPartitions).toContain(r.partition);
    await a.close();
    await b.close();
  });

  it('nack redelivers, then dead-letters after the broker maximum', async () => {
    const c = await setup();
    await c.produce('one', { key: 'bad', value: 'poison' });
    await c.produce('one', { key: 'good', value: 'fine' });
    let last = { deadLettered: false, attempts: 0, dlqTopic: '' };
    for (let attempt = 1; attempt <= 3; attempt++) {
      const { records } = await c.fetch('one', 'g', { maxRecords: 1 });
      expect(values(records)).toEqual(['poison']);
      last = await c.nack('one', 1, records[0]!.offset, 'cannot parse');
      expect(last.attempts).toBe(attempt);
    }
    expect(last).toEqual({ deadLettered: true, attempts: 3, dlqTopic: 'one.dlq' });
    expect(values((await c.fetch('one', 'g', { maxRecords: 1 })).records)).toEqual(['fine']);
  });
});
