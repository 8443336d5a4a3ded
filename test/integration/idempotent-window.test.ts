/**
 * Five idempotent batches per topic in flight over crater's idempotent window (BATCH_FLAG_WINDOW): concurrent
 * sends land once each with distinct offsets; a lost reply of a middle in-flight batch is deduplicated on the resend
 * of a durable producer and nothing after it is reordered; replies lost to a timeout are replayed on the same
 * connection; a broker that identifies as MoonMQ gets one batch in flight and never sees the flag.
 */
import { describe, expect, it } from 'vitest';
import { IdempotentSink } from '../../src/client/moonmq/idempotent-sink.js';
import type { Session } from '../../src/client/moonmq/session.js';
import { Producer } from '../../src/client/producer/producer.js';
import { BatchFlag, Op } from '../../src/protocol/opcodes.js';
import { DroppingProxy } from '../helpers/dropping-proxy.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker({
  topics: [
    { name: 'one', partitions: 1 },
    { name: 'orders', partitions: 4 },
  ],
});

function stored(topic: string): string[] {
  return env.broker.topics
    .requireTopic(topic)
    .partitions.flatMap((p) => p.read(p.logStartOffset, { maxRecords: 100_000 }))
    .map((r) => r.value.toString());
}

/** Records the flags of every PRODUCE_BATCH the session sends and the most requests it had outstanding at once. */
function observe(session: Session): { flags: number[]; maxOutstanding: number } {
  const seen = { flags: [] as number[], maxOutstanding: 0 };
  let outstanding = 0;
  const conn = session.conn as { request: (...args: unknown[]) => Promise<unknown> };
  const request = conn.request.bind(conn);
  conn.request = (codec, message, ...rest) => {
    const flags = (message as { flags?: number }).flags;
    if (flags !== undefined) seen.flags.push(flags);
    outstanding++;
    seen.maxOutstanding = Math.max(seen.maxOutstanding, outstanding);
    return request(codec, message, ...rest).finally(() => outstanding--);
  };
  return seen;
}

async function windowedProducer(options: { producerName?: string; broker?: string } = {}) {
  const c = await env.client(options.broker ? { broker: options.broker } : {});
  const session = (c as unknown as { session: Session }).session;
  const seen = observe(session);
  const sink = new IdempotentSink(session, { producerName: options.producerName });
  const producer = new Producer(sink, { lingerMs: 0, maxBatchRecords: 10 });
  env.track({ close: () => producer.close().catch(() => undefined) });
  return { producer, sink, seen };
}

describe('idempotent window (five batches per topic in flight)', () => {
  it('many concurrent sends with five in flight get distinct offsets and land once each, in order', async () => {
    await env.start();
    const { producer, sink, seen } = await windowedProducer();
    await producer.send('one', { value: 'warm' });
    expect(sink.inFlightPerTopic).toBe(5);
    const n = 2_000;
    const acks = await Promise.all(Array.from({ length: n }, (_, i) => producer.send('one', { value: `v${i}` })));
    const offsets = acks.map((a) => a.offset);
    expect(new Set(offsets).size).toBe(n);
    expect([...offsets].sort((a, b) => (a < b ? -1 : 1))).toEqual(offsets);
    expect(stored('one')).toEqual(['warm', ...Array.from({ length: n }, (_, i) => `v${i}`)]);
    expect(seen.maxOutstanding).toBeGreaterThan(1);
    expect(seen.flags.every((f) => (f & BatchFlag.WINDOW) !== 0)).toBe(true);
  });

  it('a lost reply of a middle in-flight batch is deduplicated for a durable producer; nothing is reordered', async () => {
    await env.start();
    const proxy = env.track(await DroppingProxy.start(env.broker.address.port));
    const c = await env.client({ broker: proxy.address });
    const producer = c.producer({ producerName: 'win', lingerMs: 0, maxBatchRecords: 10 });
    env.track({ close: () => producer.close().catch(() => undefined) });
    await producer.send('one', { value: 'warm' });
    proxy.armedOp = Op.PRODUCE_BATCH_ACK;
    proxy.armedSkip = 2;
    const n = 50;
    const acks = await Promise.all(Array.from({ length: n }, (_, i) => producer.send('one', { value: `v${i}` })));
    expect(proxy.dropped).toBe(1);
    expect(new Set(acks.map((a) => a.offset)).size).toBe(n);
    expect(stored('one')).toEqual(['warm', ...Array.from({ length: n }, (_, i) => `v${i}`)]);
  });

  it('replies lost to a timeout are replayed from the window on the same connection', async () => {
    await env.start();
    const proxy = env.track(await DroppingProxy.start(env.broker.address.port));
    const c = await env.client({ broker: proxy.address });
    const producer = c.producer({ idempotent: true, lingerMs: 0, maxBatchRecords: 10, requestTimeoutMs: 300 });
    env.track({ close: () => producer.close().catch(() => undefined) });
    await producer.send('one', { value: 'warm' });
    proxy.holding = true;
    const sends = Array.from({ length: 50 }, (_, i) => producer.send('one', { value: `v${i}` }));
    // Every batch was appended while its reply was swallowed; the resends are answered from the window.
    await expect.poll(() => stored('one').length, { timeout: 10_000 }).toBe(51);
    proxy.holding = false;
    const acks = await Promise.all(sends);
    expect(new Set(acks.map((a) => a.offset)).size).toBe(50);
    expect(stored('one')).toEqual(['warm', ...Array.from({ length: 50 }, (_, i) => `v${i}`)]);
  });

  it('a broker that identifies as MoonMQ gets one batch per topic in flight and never the WINDOW flag', async () => {
    await env.start();
    env.broker.identity = { name: 'MoonMQ', version: 'v0.01' };
    const { producer, sink, seen } = await windowedProducer({ producerName: 'plain' });
    const acks = await Promise.all(Array.from({ length: 200 }, (_, i) => producer.send('orders', { value: `v${i}` })));
    expect(new Set(acks.map((a) => `${a.partition}/${a.offset}`)).size).toBe(200);
    expect(sink.inFlightPerTopic).toBe(1);
    expect(seen.maxOutstanding).toBe(1);
    expect(seen.flags.length).toBeGreaterThan(1);
    expect(seen.flags.some((f) => (f & BatchFlag.WINDOW) !== 0)).toBe(false);
    expect(stored('orders').sort()).toEqual(Array.from({ length: 200 }, (_, i) => `v${i}`).sort());
  });
});
