/**
 * The accumulator against a real broker: concurrent idempotent sends land once each; a lost reply is deduplicated
 * for a durable producer and uncertain for a plain one; a partial append is resent as its tail only; close() with
 * a broker that stopped answering settles everything; a broker that stops mid-run leaves no send pending and
 * loses nothing acknowledged.
 */
import { describe, expect, it, vi } from 'vitest';
import { resolveConfig } from '../../src/broker/config.js';
import { storageLogFactory } from '../../src/broker/storage-log-factory.js';
import type { ProduceAck } from '../../src/client/producer/sink.js';
import type { Producer } from '../../src/client/producer/producer.js';
import { ConnectionError, DeliveryTimeoutError, UncertainDeliveryError } from '../../src/errors.js';
import { Op } from '../../src/protocol/opcodes.js';
import type { SegmentedLogFaults } from '../../src/storage/segmented-log.js';
import { DroppingProxy } from '../helpers/dropping-proxy.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker({
  topics: [
    { name: 'orders', partitions: 4 },
    { name: 'audit', partitions: 2 },
    { name: 'one', partitions: 1 },
  ],
});

function stored(topic: string): string[] {
  return env.broker.topics
    .requireTopic(topic)
    .partitions.flatMap((p) => p.read(p.logStartOffset, { maxRecords: 100_000 }))
    .map((r) => r.value.toString());
}

/** Closes `p` after the test; its close may fail once its connection was cut, which is not what is tested. */
function track(p: Producer): Producer {
  env.track({ close: () => p.close().catch(() => undefined) });
  return p;
}

type Outcome = { ack: ProduceAck } | { error: Error };

function settleAll(sends: Promise<ProduceAck>[]): Promise<Outcome[]> {
  return Promise.all(
    sends.map((p) =>
      p.then(
        (ack) => ({ ack }),
        (error: Error) => ({ error }),
      ),
    ),
  );
}

const ackKey = (topic: string, a: ProduceAck) => `${topic}/${a.partition}/${a.offset}`;

describe('producer accumulator on a real broker', () => {
  it('many concurrent idempotent sends get that many distinct offsets and land once each', async () => {
    await env.start();
    const c = await env.client();
    const producer = track(c.producer({ idempotent: true, lingerMs: 1 }));
    const n = 3_000;
    const sends = Array.from({ length: n }, (_, i) => {
      const topic = i % 3 === 0 ? 'audit' : 'orders';
      return producer.send(topic, { key: `k${i}`, value: `v${i}` }).then((ack) => ackKey(topic, ack));
    });
    const keys = await Promise.all(sends);
    expect(new Set(keys).size).toBe(n);
    const values = [...stored('orders'), ...stored('audit')];
    expect(values).toHaveLength(n);
    expect(new Set(values).size).toBe(n);
    expect(producer.metrics()['records-per-request-avg']).toBeGreaterThan(1);
  });

  it('a lost reply is deduplicated on the resend of a durable producer', async () => {
    await env.start();
    const proxy = env.track(await DroppingProxy.start(env.broker.address.port));
    const c = await env.client({ broker: proxy.address });
    const producer = track(c.producer({ producerName: 'app', lingerMs: 0 }));
    await producer.send('orders', { value: 'warm' });
    proxy.armedOp = Op.PRODUCE_BATCH_ACK;
    const outcomes = await settleAll(
      Array.from({ length: 20 }, (_, i) => producer.send('orders', { key: `k${i}`, value: `v${i}` })),
    );
    expect(proxy.dropped).toBe(1);
    expect(outcomes.every((o) => 'ack' in o)).toBe(true);
    expect(stored('orders').sort()).toEqual(['warm', ...Array.from({ length: 20 }, (_, i) => `v${i}`)].sort());
  });

  it('a lost reply is uncertain for a plain producer, which does not resend it', async () => {
    await env.start();
    const proxy = env.track(await DroppingProxy.start(env.broker.address.port));
    const c = await env.client({ broker: proxy.address });
    const producer = track(c.producer({ lingerMs: 0 }));
    await producer.send('orders', { value: 'warm' });
    proxy.armedOp = Op.PRODUCE_BATCH_ACK;
    const outcomes = await settleAll(
      Array.from({ length: 5 }, (_, i) => producer.send('orders', { key: `k${i}`, value: `v${i}` })),
    );
    expect(outcomes.every((o) => 'error' in o && o.error instanceof UncertainDeliveryError)).toBe(true);
    const first = (outcomes[0] as { error: UncertainDeliveryError }).error;
    expect(first.record).toEqual({ key: 'k0', value: 'v0' });
    expect(first.request.topic).toBe('orders');
    // They were in fact written, once: the broker appended before the reply was cut.
    expect(stored('orders')).toHaveLength(6);
    // The connection is gone and this producer cannot open another: the next send fails as never sent.
    await expect(producer.send('orders', { value: 'after' })).rejects.toThrow(ConnectionError);
  });

  it('a partial append is resent as its tail only, after the backoff', async () => {
    const faults: SegmentedLogFaults = {};
    await env.start({ logFactory: storageLogFactory(resolveConfig({ dataDir: env.dataDir }), { faults }) });
    const c = await env.client();
    const clock = new ManualClock();
    const producer = track(c.producer({ clock, random: () => 0.5, lingerMs: 0 }));
    faults.failAfterRecords = 3;
    const sends = Array.from({ length: 10 }, (_, i) => producer.send('one', { key: `k${i}`, value: `v${i}` }));
    await clock.advance(0);
    const prefix = await Promise.all(sends.slice(0, 3));
    expect(prefix).toHaveLength(3);
    expect(stored('one')).toEqual(['v0', 'v1', 'v2']);
    expect(producer.metrics()['request-total']).toBe(1);
    faults.failAfterRecords = undefined;
    await clock.advance(100);
    const acks = await Promise.all(sends);
    const offsets = acks.map((a) => a.offset);
    expect([...offsets].sort((a, b) => (a < b ? -1 : 1))).toEqual(offsets);
    expect(new Set(offsets).size).toBe(10);
    // A resent prefix would show up twice: the log holds each record once, in order.
    expect(stored('one')).toEqual(Array.from({ length: 10 }, (_, i) => `v${i}`));
    expect(producer.metrics()['record-retry-total']).toBe(7);
  });

  it('close({ drainMs }) with a broker that stopped answering: in flight is uncertain, the rest never sent', async () => {
    await env.start();
    const proxy = env.track(await DroppingProxy.start(env.broker.address.port));
    const c = await env.client({ broker: proxy.address });
    const producer = track(
      c.producer({ lingerMs: 60_000, maxBatchRecords: 10, maxInFlight: 1, deliveryTimeoutMs: 120_000 }),
    );
    proxy.holding = true;
    const outcomes = settleAll(
      Array.from({ length: 25 }, (_, i) => producer.send('orders', { key: `k${i}`, value: `v${i}` })),
    );
    await producer.close({ drainMs: 20 });
    const settled = await outcomes;
    expect(settled.slice(0, 10).every((o) => 'error' in o && o.error instanceof UncertainDeliveryError)).toBe(true);
    expect(
      settled
        .slice(10)
        .every((o) => 'error' in o && o.error instanceof DeliveryTimeoutError && o.error.phase === 'closing'),
    ).toBe(true);
  });

  it('a broker stopping mid-run leaves no send pending, and every acked record is in the log', async () => {
    await env.start();
    const c = await env.client();
    const producer = track(c.producer({ lingerMs: 0, maxBatchRecords: 50 }));
    const sends = Array.from({ length: 2_000 }, (_, i) => producer.send('orders', { key: `k${i}`, value: `v${i}` }));
    const settled = settleAll(sends);
    await vi.waitFor(() => expect(producer.metrics()['request-total']).toBeGreaterThan(2), {
      timeout: 10_000,
      interval: 1,
    });
    await env.broker.stop();
    const outcomes = await settled;
    const acked = outcomes.flatMap((o, i) => ('ack' in o ? [`v${i}`] : []));
    for (const o of outcomes) {
      if ('error' in o)
        expect(o.error instanceof UncertainDeliveryError || o.error instanceof ConnectionError).toBe(true);
    }
    expect(acked.length).toBeLessThan(2_000);
    await env.restart();
    const values = new Set(stored('orders'));
    expect(acked.filter((v) => !values.has(v))).toEqual([]);
  });
});
