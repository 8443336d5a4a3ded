/**
 * BATCH_FLAG_PARTITION (docs/extensions.md): a PRODUCE_BATCH that names its partition lands there whatever the keys
 * hash to; a partition outside 1..N is ERR 1 with nothing appended; a broker that did not identify itself as crater
 * is never sent the flag (a MoonMQ broker would read the partition as the record count).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { BrokerError, UsageError } from '../../src/errors.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker();

beforeEach(async () => {
  await env.start({ topics: [{ name: 'three', partitions: 3 }] });
});

async function latestByPartition(): Promise<bigint[]> {
  const c = await env.client();
  return (await c.listOffsets('three')).partitions.map((p) => p.latest);
}

describe('PRODUCE_BATCH with a fixed partition', () => {
  it('puts every record, whatever its key, in the named partition', async () => {
    const c = await env.client();
    const records = ['a', 'b', 'c', 'd', 'e'].map((k) => ({ key: k, value: `v-${k}` }));
    const result = await c.produceBatch('three', records, { partition: 2 });
    expect(result.acks.map((a) => a.partition)).toEqual([2, 2, 2, 2, 2]);
    const [p1, p2, p3] = await latestByPartition();
    expect([p1, p3]).toEqual([0n, 0n]);
    expect(p2).toBeGreaterThan(0n);
  });

  it('answers ERR 1 for a partition outside 1..N and appends nothing', async () => {
    const c = await env.client();
    const error = await c.produceBatch('three', [{ value: 'x' }], { partition: 4 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrokerError);
    expect((error as BrokerError).errorCode).toBe(1);
    expect(await latestByPartition()).toEqual([0n, 0n, 0n]);
  });

  it('is refused before sending to a broker that is not crater', async () => {
    env.broker.identity = { name: 'MoonMQ', version: 'v0.01' };
    const c = await env.client();
    expect(c.isCrater).toBe(false);
    await expect(c.produceBatch('three', [{ value: 'x' }], { partition: 1 })).rejects.toBeInstanceOf(UsageError);
    expect(await latestByPartition()).toEqual([0n, 0n, 0n]);
  });
});
