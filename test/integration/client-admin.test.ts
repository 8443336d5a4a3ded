import { describe, expect, it } from 'vitest';
import type { Client } from '../../src/client/index.js';
import { BrokerError, UsageError } from '../../src/errors.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker();

async function setup(): Promise<Client> {
  await env.start();
  return env.client();
}

describe('client: handshake and topic administration against the broker', () => {
  it('identifies the broker as crater', async () => {
    const c = await setup();
    expect(c.isCrater).toBe(true);
    expect(c.serverName).toBe('crater');
    expect(typeof c.serverVersion).toBe('string');
    expect(c.address).toBe(`127.0.0.1:${env.broker.address.port}`);
  });

  it('creates, lists, describes, alters, grows and deletes topics', async () => {
    const c = await setup();
    await c.createTopic('orders', 3);
    await c.createTopic('audit', 1);
    expect(await c.listTopics()).toEqual(['audit', 'orders']);

    const described = await c.describeTopic('orders');
    expect(described.name).toBe('orders');
    expect(described.partitionCount).toBe(3);

    await c.alterTopicConfig('orders', { retention: 3_600 });
    const altered = await c.describeTopic('orders');
    expect(altered.config).toContainEqual({ key: 'retention', value: '3600' });

    await c.createPartitions('orders', 5);
    expect((await c.describeTopic('orders')).partitionCount).toBe(5);

    await c.deleteTopic('audit');
    expect(await c.listTopics()).toEqual(['orders']);
  });

  it('surfaces broker refusals as BrokerError with the wire code', async () => {
    const c = await setup();
    await c.createTopic('orders', 1);
    await expect(c.createTopic('orders', 1)).rejects.toMatchObject({ errorCode: 7, errorName: 'ERR_INTERNAL' });
    await expect(c.describeTopic('missing')).rejects.toBeInstanceOf(BrokerError);
    await expect(c.createPartitions('orders', 1)).rejects.toMatchObject({ errorName: 'ERR_INVALID_PARTITIONS' });
    // The connection survives refusals.
    expect(await c.listTopics()).toEqual(['orders']);
  });

  it('refuses out-of-cap arguments client-side, before anything reaches the broker', async () => {
    const c = await setup();
    await expect(c.createTopic('__internal', 1)).rejects.toBeInstanceOf(UsageError);
    await expect(c.createTopic('x'.repeat(250), 1)).rejects.toBeInstanceOf(UsageError);
    await expect(c.createTopic('ok', 1025)).rejects.toBeInstanceOf(UsageError);
    await expect(c.alterTopicConfig('ok', {})).rejects.toBeInstanceOf(UsageError);
    expect(await c.listTopics()).toEqual([]);
  });

  it('lists offset bounds, and the for-times section when a timestamp is given', async () => {
    const c = await setup();
    await c.createTopic('orders', 2);
    const before = BigInt(Date.now()) - 1n;
    await c.produce('orders', { key: 'a', value: 'one' });
    const bounds = await c.listOffsets('orders');
    expect(bounds.partitions.map((p) => p.partition)).toEqual([1, 2]);
    expect(bounds.forTimes).toBeUndefined();
    const written = bounds.partitions.filter((p) => p.latest > p.earliest);
    expect(written).toHaveLength(1);

    const times = await c.listOffsets('orders', { timestampMs: before });
    expect(times.forTimes).toHaveLength(2);
    const hit = times.forTimes!.find((t) => t.partition === written[0]!.partition)!;
    expect(hit.flags & 1).toBe(1);
    expect(hit.offset).toBe(written[0]!.earliest);
    const future = await c.listOffsets('orders', { timestampMs: BigInt(Date.now()) + 3_600_000n });
    for (const t of future.forTimes!) expect(t.flags & 1).toBe(0);
  });
});
