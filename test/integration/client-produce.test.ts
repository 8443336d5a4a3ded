import { describe, expect, it } from 'vitest';
import type { BrokerStartOptions } from '../../src/broker/broker.js';
import { resolveConfig } from '../../src/broker/config.js';
import { storageLogFactory } from '../../src/broker/storage-log-factory.js';
import { createProducer, type Client } from '../../src/client/index.js';
import { BrokerError, UsageError } from '../../src/errors.js';
import type { SegmentedLogFaults } from '../../src/storage/segmented-log.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker({ topics: [{ name: 'orders', partitions: 4 }] });

async function setup(options: Partial<BrokerStartOptions> = {}): Promise<Client> {
  await env.start(options);
  return env.client();
}

const readAll = (topic: string) => {
  const out: { partition: number; key: string; value: string }[] = [];
  env.broker.topics.requireTopic(topic).partitions.forEach((log, i) => {
    for (const r of log.read(0n, { maxRecords: 100_000, maxBytes: 64 * 1_048_576 })) {
      out.push({ partition: i + 1, key: r.key.toString(), value: r.value.toString() });
    }
  });
  return out;
};

describe('client: producing against the broker', () => {
  it('produces one record and gets its partition and offset', async () => {
    const c = await setup();
    const ack = await c.produce('orders', { key: 'user-1', value: 'hello' });
    expect(ack.partition).toBeGreaterThanOrEqual(1);
    expect(ack.partition).toBeLessThanOrEqual(4);
    expect(ack.offset).toBe(0n);
    const again = await c.produce('orders', { key: 'user-1', value: 'again' });
    expect(again.partition).toBe(ack.partition);
    expect(again.offset).toBeGreaterThan(0n);
    expect(readAll('orders').map((r) => r.value)).toEqual(['hello', 'again']);
  });

  it('produces a batch: acks aligned with the records, keys kept together in order', async () => {
    const c = await setup();
    const records = Array.from({ length: 20 }, (_, i) => ({ key: `k${i % 3}`, value: `v${i}` }));
    const { acks, error } = await c.produceBatch('orders', records);
    expect(error).toBeUndefined();
    expect(acks).toHaveLength(20);
    for (let i = 3; i < 20; i++) {
      expect(acks[i]!.partition).toBe(acks[i - 3]!.partition);
      expect(acks[i]!.offset).toBeGreaterThan(acks[i - 3]!.offset);
    }
    const stored = readAll('orders');
    expect(stored).toHaveLength(20);
    for (const [i, ack] of acks.entries()) {
      expect(stored.find((s) => s.value === `v${i}`)!.partition).toBe(ack.partition);
    }
  });

  it('pipelines 4 batches of 1,000 records on one connection', async () => {
    const c = await setup();
    const batch = (b: number) => Array.from({ length: 1_000 }, (_, i) => ({ key: `k${i}`, value: `b${b}-${i}` }));
    const results = await Promise.all([0, 1, 2, 3].map((b) => c.produceBatch('orders', batch(b))));
    for (const r of results) {
      expect(r.error).toBeUndefined();
      expect(r.acks).toHaveLength(1_000);
    }
    expect(readAll('orders')).toHaveLength(4_000);
  });

  it('returns the landed prefix and the error of a partial append, and throws when nothing landed', async () => {
    const faults: SegmentedLogFaults = {};
    const c = await setup({
      topics: [{ name: 'one', partitions: 1 }],
      logFactory: storageLogFactory(resolveConfig({ dataDir: env.dataDir }), { faults }),
    });
    faults.failAfterRecords = 3;
    const records = Array.from({ length: 10 }, (_, i) => ({ value: `v${i}` }));
    const partial = await c.produceBatch('one', records);
    expect(partial.acks).toHaveLength(3);
    expect(partial.error).toBeInstanceOf(BrokerError);
    expect(partial.error).toMatchObject({ errorCode: 7 });
    expect(readAll('one').map((r) => r.value)).toEqual(['v0', 'v1', 'v2']);

    faults.failAfterRecords = 0;
    await expect(c.produceBatch('one', records)).rejects.toMatchObject({ errorCode: 7 });
    // The failed records were not written: the log still holds the first prefix only.
    expect(readAll('one')).toHaveLength(3);
  });

  it('throws ERR_TOPIC_MISSING for a missing topic and refuses caps before sending', async () => {
    const c = await setup();
    await expect(c.produce('nope', { value: 'x' })).rejects.toMatchObject({ errorName: 'ERR_TOPIC_MISSING' });
    await expect(c.produceBatch('nope', [{ value: 'x' }])).rejects.toMatchObject({ errorName: 'ERR_TOPIC_MISSING' });
    await expect(c.produce('orders', { value: Buffer.alloc(65_537) })).rejects.toBeInstanceOf(UsageError);
    await expect(c.produceBatch('orders', [])).rejects.toBeInstanceOf(UsageError);
    expect(readAll('orders')).toHaveLength(0);
  });

  it('stores values with the requested codec and hands them back decompressed', async () => {
    const c = await setup();
    await c.produce('orders', { key: 'k', value: 'x'.repeat(1_000), codec: 'gzip' });
    await c.produceBatch('orders', [{ key: 'k', value: 'y'.repeat(1_000) }], { codec: 'snappy' });
    const { records } = await c.fetch('orders', 'g', { maxRecords: 10 });
    expect(records.map((r) => r.value.toString())).toEqual(['x'.repeat(1_000), 'y'.repeat(1_000)]);
  });

  it('Producer.sendBatch splits a batch over the frame limit and returns every ack in order', async () => {
    const c = await setup();
    const producer = createProducer(c, { maxFrameBytes: 64 * 1024 });
    const records = Array.from({ length: 300 }, (_, i) => ({ key: `k${i}`, value: Buffer.alloc(1_000, i % 256) }));
    const { acks, error } = await producer.sendBatch('orders', records);
    expect(error).toBeUndefined();
    expect(acks).toHaveLength(300);
    expect(readAll('orders')).toHaveLength(300);
    expect((await producer.send('orders', { value: 'single' })).partition).toBeGreaterThanOrEqual(1);
    await producer.close();
    await expect(producer.send('orders', { value: 'late' })).rejects.toBeInstanceOf(UsageError);
    expect(() => c.producer({ idempotent: false, producerName: 'app' })).toThrow(UsageError);
  });

  it('prepareBatch encodes now and sends on send(): the same records and acks as produceBatch, headers and big batches too', async () => {
    const c = await setup();
    const records = Array.from({ length: 50 }, (_, i) => ({
      key: i % 5 === 0 ? undefined : `k${i % 7}`,
      value: `v${i}`,
    }));
    const prepared = c.prepareBatch('orders', records);
    expect(prepared.count).toBe(50);
    // Encoded once: changing the caller's records after prepareBatch does not change what is sent.
    records[1] = { key: 'changed', value: 'changed' };
    const { acks, error } = await prepared.send();
    expect(error).toBeUndefined();
    const direct = await c.produceBatch('orders', [{ key: 'k1', value: 'again' }]);
    expect(direct.acks[0]!.partition).toBe(acks[1]!.partition);
    const stored = readAll('orders');
    expect(stored.map((r) => r.value).sort()).toEqual(
      [...Array.from({ length: 50 }, (_, i) => `v${i}`), 'again'].sort(),
    );
    expect(stored.find((r) => r.value === 'v1')!.key).toBe('k1');
    for (const [i, ack] of acks.entries())
      expect(stored.find((r) => r.value === `v${i}`)!.partition).toBe(ack.partition);

    // Batches past 64 KiB reuse one entries buffer once the previous one was sent: each lands as it was prepared.
    const large = (tag: string) => Array.from({ length: 1_000 }, (_, i) => ({ value: `${tag}-${i}`.padEnd(100, '.') }));
    const first = c.prepareBatch('orders', large('a'));
    const firstSent = first.send();
    const second = c.prepareBatch('orders', large('b'));
    const [ra, rb] = await Promise.all([firstSent, second.send()]);
    expect(ra.acks.length + rb.acks.length).toBe(2_000);
    const values = readAll('orders').map((r) => r.value);
    for (const tag of ['a', 'b'])
      expect(values.filter((v) => v.startsWith(`${tag}-`)).sort()).toEqual(
        large(tag)
          .map((r) => r.value)
          .sort(),
      );

    const big = Array.from({ length: 20 }, (_, i) => ({ value: Buffer.alloc(60_000, i) }));
    const split = await c.prepareBatch('orders', big).send();
    expect(split.error).toBeUndefined();
    expect(split.acks).toHaveLength(20);
    const withHeaders = await c
      .prepareBatch('orders', [{ value: 'h', headers: [{ name: 'a', value: Buffer.from('b') }] }])
      .send();
    expect(withHeaders.acks).toHaveLength(1);
    expect(readAll('orders')).toHaveLength(2_072);
    await expect(c.prepareBatch('nope', [{ value: 'x' }]).send()).rejects.toMatchObject({
      errorName: 'ERR_TOPIC_MISSING',
    });
    expect(() => c.prepareBatch('orders', [])).toThrow(UsageError);
  });
});
