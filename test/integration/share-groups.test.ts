/**
 * Share groups end to end (crater extension, seed 004 / KIP-932) against an in-process broker through the real
 * client: disjoint delivery to concurrent members, RELEASE / REJECT / RENEW, the delivery limit, lock expiry and
 * member loss driven by a controllable broker clock, read_committed, durability across a restart, a malformed frame,
 * and a non-crater broker never seeing a share frame.
 */
import { describe, expect, it } from 'vitest';
import type { BrokerStartOptions } from '../../src/broker/broker.js';
import { decodeDlqEnvelope } from '../../src/broker/consumer/dlq-envelope.js';
import type { Client } from '../../src/client/client.js';
import type { ShareConsumer, ShareConsumerOptions } from '../../src/client/moonmq/share-consumer.js';
import { UsageError } from '../../src/errors.js';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { ShareAckRequest, ShareAckResultReply } from '../../src/protocol/messages/share-ack.js';
import { ShareAckType } from '../../src/protocol/opcodes.js';
import { until } from '../helpers/eventually.js';
import { eventually, fill, manualClock, pollUntil, valueOf } from '../helpers/share.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker({
  topics: [
    { name: 'jobs', partitions: 4 },
    { name: 'one', partitions: 1 },
  ],
  share: { sweepIntervalMs: 20 },
});

async function setup(
  options: Partial<BrokerStartOptions> = {},
  config: Record<string, string | number | boolean> = {},
): Promise<Client> {
  await env.start(options);
  const c = await env.client();
  await c.shareGroups.alter('workers', { 'auto.offset.reset': 'earliest', ...config });
  return c;
}

async function member(c: Client, options: Partial<ShareConsumerOptions> = {}): Promise<ShareConsumer> {
  return env.track(await c.shareConsumer({ group: 'workers', topics: ['one'], maxWaitMs: 50, ...options }));
}

describe('share groups: delivery to concurrent members', () => {
  it.each([2, 4])('%i members of one group receive disjoint records that together cover the topic', async (n) => {
    const c = await setup();
    await fill(c, 'jobs', 2_000);
    const members = await Promise.all(
      Array.from({ length: n }, () => member(c, { topics: ['jobs'], maxRecords: 100 })),
    );
    const seen = members.map(() => [] as string[]);
    let total = 0;
    await Promise.all(
      members.map((m, i) =>
        until(
          async () => {
            if (total < 2_000) {
              const records = await m.poll();
              for (const r of records) seen[i]!.push(valueOf(r));
              total += records.length;
            }
            return total >= 2_000 ? true : undefined;
          },
          { timeoutMs: 20_000, intervalMs: 0, what: () => `2,000 records across the members (${total} arrived)` },
        ),
      ),
    );
    const all = seen.flat();
    expect(all).toHaveLength(2_000);
    expect(new Set(all).size).toBe(2_000);
    expect(seen.filter((s) => s.length > 0).length).toBeGreaterThan(1);
    for (const m of members) await m.commit();
    const d = await c.shareGroups.describe('workers');
    expect(d.partitions.map((p) => p.spso)).toEqual(d.partitions.map((p) => p.endOffset));
  });

  it('auto.offset.reset latest (the default) starts a new group at the end', async () => {
    await env.start();
    const c = await env.client();
    await fill(c, 'one', 5, 'old');
    const m = await member(c, { group: 'fresh' });
    expect(await m.poll()).toEqual([]);
    await fill(c, 'one', 2, 'new');
    expect((await pollUntil(m, 2)).map(valueOf)).toEqual(['new0', 'new1']);
  });
});

describe('share groups: acknowledgement types', () => {
  it('RELEASE makes a record available again, redelivered with deliveryCount 2', async () => {
    const c = await setup();
    await fill(c, 'one', 3);
    const a = await member(c, { ackMode: 'explicit' });
    const first = await pollUntil(a, 3);
    expect(first.map((r) => r.deliveryCount)).toEqual([1, 1, 1]);
    a.acknowledge(first[0]!, 'accept');
    a.acknowledge(first[1]!, 'release');
    a.acknowledge(first[2]!, 'accept');
    const again = await pollUntil(a, 1);
    expect(again.map((r) => [valueOf(r), r.deliveryCount])).toEqual([['v1', 2]]);
  });

  it('explicit mode refuses a poll while records of the last one are unacknowledged', async () => {
    const c = await setup();
    await fill(c, 'one', 2);
    const a = await member(c, { ackMode: 'explicit' });
    const got = await pollUntil(a, 2);
    a.acknowledge(got[0]!);
    await expect(a.poll()).rejects.toBeInstanceOf(UsageError);
  });

  it('RELEASE with a delay keeps the record unavailable until the delay passed on the broker clock', async () => {
    const clock = manualClock();
    const c = await setup({ clock: clock.now });
    await fill(c, 'one', 1);
    const a = await member(c, { ackMode: 'explicit' });
    const [r] = await pollUntil(a, 1);
    a.acknowledge(r!, 'release', { delayMs: 10_000 });
    expect(await a.poll()).toEqual([]);
    clock.advance(10_001);
    expect((await pollUntil(a, 1)).map((x) => x.deliveryCount)).toEqual([2]);
  });

  it('REJECT archives the record and, with dlq.enabled, copies it to <topic>.dlq with disposition and count', async () => {
    const c = await setup({}, { 'dlq.enabled': true });
    await fill(c, 'one', 2);
    const a = await member(c, { ackMode: 'explicit' });
    const got = await pollUntil(a, 2);
    a.acknowledge(got[0]!, 'reject', { reason: 'bad json' });
    a.acknowledge(got[1]!, 'accept');
    expect((await a.commit()).every((r) => r.errorCode === 0)).toBe(true);
    const d = await c.shareGroups.describe('workers');
    expect(d.partitions[0]).toMatchObject({ acquired: 0, available: 0 });
    expect(d.partitions[0]!.spso).toBe(d.partitions[0]!.endOffset);
    const dlq = await c.fetch('one.dlq', 'dlq-reader');
    expect(dlq.records).toHaveLength(1);
    const envelope = decodeDlqEnvelope(dlq.records[0]!.value);
    expect(envelope).toMatchObject({
      topic: 'one',
      group: 'workers',
      attempts: 1,
      reason: 'rejected: bad json',
      offset: got[0]!.offset,
    });
    expect(envelope.value.toString()).toBe('v0');
    expect(await a.poll()).toEqual([]);
  });

  it('the delivery limit archives a record released that many times', async () => {
    const c = await setup({}, { 'delivery.count.limit': 2, 'dlq.enabled': true });
    await fill(c, 'one', 1);
    const a = await member(c, { ackMode: 'explicit' });
    for (const expected of [1, 2]) {
      const [r] = await pollUntil(a, 1);
      expect(r!.deliveryCount).toBe(expected);
      a.acknowledge(r!, 'release');
    }
    expect(await a.poll()).toEqual([]);
    expect(await a.poll()).toEqual([]);
    const d = await c.shareGroups.describe('workers');
    expect(d.partitions[0]!.spso).toBe(d.partitions[0]!.endOffset);
    const dlq = await c.fetch('one.dlq', 'dlq-reader');
    expect(decodeDlqEnvelope(dlq.records[0]!.value)).toMatchObject({
      attempts: 2,
      reason: 'delivery-limit: delivered 2 times',
    });
  });
});

describe('share groups: locks and members on the broker clock', () => {
  it('a member that stops working loses its locks after record.lock.duration.ms; another gets the records', async () => {
    const clock = manualClock();
    const c = await setup({ clock: clock.now }, { 'record.lock.duration.ms': 5_000 });
    await fill(c, 'one', 3);
    const errors: number[] = [];
    const stuck = await member(c, { ackMode: 'explicit', onAckError: (r) => errors.push(r.errorCode) });
    const held = await pollUntil(stuck, 3);
    const other = await member(c);
    expect(await other.poll()).toEqual([]);
    clock.advance(5_000);
    const taken = await pollUntil(other, 3);
    expect(taken.map((r) => [valueOf(r), r.deliveryCount])).toEqual([
      ['v0', 2],
      ['v1', 2],
      ['v2', 2],
    ]);
    for (const r of held) stuck.acknowledge(r, 'accept');
    const results = await stuck.commit();
    expect(results.map((r) => r.errorCode)).toEqual([ErrorCode.INVALID_RECORD_STATE]);
    expect(errors).toEqual([ErrorCode.INVALID_RECORD_STATE]);
  });

  it('RENEW keeps a record locked past its first deadline', async () => {
    const clock = manualClock();
    const c = await setup({ clock: clock.now }, { 'record.lock.duration.ms': 30_000 });
    await fill(c, 'one', 1);
    const a = await member(c, { ackMode: 'explicit' });
    const [r] = await pollUntil(a, 1);
    const b = await member(c);
    clock.advance(20_000);
    await a.renew(r!);
    clock.advance(20_000);
    expect(await b.poll()).toEqual([]);
    a.acknowledge(r!, 'accept');
    expect((await a.commit()).map((x) => x.errorCode)).toEqual([0]);
    clock.advance(40_000);
    expect(await b.poll()).toEqual([]);
  });

  it('withLockRenewal renews while the work runs, so the lock outlives its first deadline', async () => {
    const clock = manualClock();
    const c = await setup({ clock: clock.now }, { 'record.lock.duration.ms': 100 });
    await fill(c, 'one', 1);
    const a = await member(c, { ackMode: 'explicit' });
    const [r] = await pollUntil(a, 1);
    const b = await member(c);
    const first = r!.lockDeadlineMs;
    const entry = () => [...env.broker.share.group('workers')!.partition('one', 1)!.inFlight()][0]!;
    await a.withLockRenewal(r!, async () => {
      clock.advance(60);
      await eventually(() => (BigInt(entry().lockDeadline) > first ? true : undefined));
      clock.advance(60);
      expect(await b.poll()).toEqual([]);
    });
    a.acknowledge(r!, 'accept');
    expect((await a.commit()).map((x) => x.errorCode)).toEqual([0]);
  });

  it('partition.max.record.locks caps the in-flight window; acks make room', async () => {
    const c = await setup({}, { 'partition.max.record.locks': 3 });
    await fill(c, 'one', 10);
    const a = await member(c, { ackMode: 'explicit', maxRecords: 10 });
    const got = await pollUntil(a, 3);
    expect(got).toHaveLength(3);
    const b = await member(c, { maxRecords: 10 });
    expect(await b.poll()).toEqual([]);
    for (const r of got) a.acknowledge(r, 'accept');
    await a.commit();
    expect((await pollUntil(b, 3)).map(valueOf)).toEqual(['v3', 'v4', 'v5']);
  });

  it('a killed consumer releases its records at once (counts kept); another member gets them', async () => {
    const c = await setup();
    await fill(c, 'one', 2);
    const doomed = await c.shareConsumer({ group: 'workers', topics: ['one'], ackMode: 'explicit', maxWaitMs: 0 });
    await pollUntil(doomed, 2);
    const other = await member(c);
    doomed['session'].conn.destroy();
    const taken = await pollUntil(other, 2);
    expect(taken.map((r) => r.deliveryCount)).toEqual([2, 2]);
    await doomed.close();
  });

  it('a member that misses heartbeats for the session timeout is removed and its records released', async () => {
    const clock = manualClock();
    const c = await setup(
      { clock: clock.now, share: { sweepIntervalMs: 20, sessionTimeoutMs: 45_000 } },
      { 'record.lock.duration.ms': 600_000 },
    );
    await fill(c, 'one', 1);
    const silent = await member(c, { ackMode: 'explicit' });
    await pollUntil(silent, 1);
    clock.advance(45_000);
    await eventually(async () => ((await c.shareGroups.describe('workers')).members.length === 0 ? true : undefined));
    const other = await member(c);
    expect((await pollUntil(other, 1)).map((r) => r.deliveryCount)).toEqual([2]);
  });
});

describe('share groups: read_committed', () => {
  it('never delivers aborted records and waits at an open transaction', async () => {
    const c = await setup({}, { 'isolation.level': 'read_committed' });
    const producer = env.track((await env.client()).producer({ producerName: 'tx' }));
    await producer.beginTransaction();
    await producer.send('one', { key: 'a', value: 'aborted' });
    await producer.abortTransaction();
    await fill(c, 'one', 1, 'plain');
    await producer.beginTransaction();
    await producer.send('one', { key: 'b', value: 'open' });
    await fill(c, 'one', 1, 'after-open');
    const m = await member(c);
    expect((await pollUntil(m, 1)).map(valueOf)).toEqual(['plain0']);
    expect(await m.poll()).toEqual([]);
    await producer.commitTransaction();
    expect((await pollUntil(m, 2)).map(valueOf)).toEqual(['open', 'after-open0']);
  });
});

describe('share groups: durability and refusals', () => {
  it('a restart keeps delivery counts and acknowledged records; records acquired at the stop come back Available', async () => {
    const c = await setup();
    await fill(c, 'one', 3);
    const a = await member(c, { ackMode: 'explicit' });
    const got = await pollUntil(a, 3);
    a.acknowledge(got[0]!, 'accept');
    a.acknowledge(got[1]!, 'release');
    await a.commit();
    await env.restart();
    const c2 = await env.client();
    const b = await member(c2);
    const again = await pollUntil(b, 2);
    expect(again.map((r) => [valueOf(r), r.deliveryCount])).toEqual([
      ['v1', 2],
      ['v2', 2],
    ]);
    expect(await b.poll()).toEqual([]);
  });

  it('a malformed share frame gets ERR_BAD_FRAME and changes nothing', async () => {
    const c = await setup({ clock: manualClock().now });
    await fill(c, 'one', 2);
    const a = await member(c, { ackMode: 'explicit' });
    const got = await pollUntil(a, 2);
    const before = await c.shareGroups.describe('workers');
    const raw = await env.raw();
    const payload = Buffer.concat([
      str('workers'),
      str(a.memberId),
      u32(1),
      str('one'),
      u32(1),
      u32(1),
      u64(got[0]!.offset),
      u64(got[0]!.offset),
      Buffer.from([9]),
      u32(0),
      u32(0),
    ]);
    const error = raw.error(await raw.requestFrame(0x64, payload));
    expect(error).toMatchObject({ code: ErrorCode.BAD_FRAME });
    expect(error!.message).toContain('ack_type');
    const range = (first: bigint, last: bigint, type: number) => ({
      firstOffset: first,
      lastOffset: last,
      type,
      releaseDelayMs: 0,
      reason: '',
    });
    const overlapping = {
      group: 'workers',
      memberId: a.memberId,
      acks: [
        {
          topic: 'one',
          partition: 1,
          ranges: [
            range(got[0]!.offset, got[1]!.offset, ShareAckType.ACCEPT),
            range(got[0]!.offset, got[0]!.offset, ShareAckType.REJECT),
          ],
        },
      ],
    };
    const refused = await a['session'].conn
      .request(ShareAckRequest, overlapping, ShareAckResultReply)
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ errorCode: ErrorCode.BAD_FRAME });
    expect(await c.shareGroups.describe('workers')).toEqual(before);
  });

  it('against a broker that is not crater, share calls throw UsageError and send nothing', async () => {
    const b = await env.start();
    b.identity = { name: 'MoonMQ', version: '1.0.0' };
    const c = await env.client();
    await expect(c.shareConsumer({ group: 'g', topics: ['one'] })).rejects.toBeInstanceOf(UsageError);
    await expect(c.shareGroups.list()).rejects.toBeInstanceOf(UsageError);
    expect(b.share.groups.size).toBe(0);
  });
});

function str(s: string): Buffer {
  const b = Buffer.from(s);
  return Buffer.concat([u32(b.length), b]);
}
function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}
function u64(n: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(n);
  return b;
}
