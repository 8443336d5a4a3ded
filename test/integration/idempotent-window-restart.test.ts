/**
 * The idempotent window (BATCH_FLAG_WINDOW, docs/extensions.md) across a broker restart on the same data dir: the
 * older batches of a durable producer's window come back from the memo's window tail ("CRWI"), so a resend of any
 * of the last five batches is answered with its original acks and appends nothing. Raw frames pin the broker's
 * answers; a Producer with five batches in flight whose replies were lost checks exactly-once end to end, after a
 * graceful stop (in-process broker) and after a SIGKILL (child broker).
 */
import { describe, expect, it } from 'vitest';
import { IdempotentSink } from '../../src/client/moonmq/idempotent-sink.js';
import { openSession, type Session } from '../../src/client/moonmq/session.js';
import { Producer } from '../../src/client/producer/producer.js';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { InitProducerIdRequest, ProducerIdReply } from '../../src/protocol/messages/init-producer-id.js';
import { ProduceBatchAckReply, ProduceBatchRequest } from '../../src/protocol/messages/produce-batch.js';
import { BatchFlag } from '../../src/protocol/opcodes.js';
import { expectExactlyOnce, type StoredAt, storedRecords, useCrashRun } from '../helpers/crash-run.js';
import { DroppingProxy } from '../helpers/dropping-proxy.js';
import { eventually } from '../helpers/eventually.js';
import type { RawClient } from '../helpers/raw-client.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker({ topics: [{ name: 'orders', partitions: 4 }] });

interface Pid {
  producerId: bigint;
  epoch: number;
}

const PER_BATCH = 3;
const recordsOf = (batch: number) =>
  Array.from({ length: PER_BATCH }, (_, i) => ({
    key: Buffer.from(`k${batch}-${i}`),
    value: Buffer.from(`b${batch}-${i}`),
  }));

async function init(c: RawClient, resume?: Pid): Promise<Pid> {
  return c.decode(ProducerIdReply, await c.request(InitProducerIdRequest, { producerName: 'app', resume }));
}

/** Batch `b` of the durable producer: records b-0..b-2 at sequence b × 3, sent with the window flag. */
function windowed(c: RawClient, id: Pid, b: number) {
  return c.request(ProduceBatchRequest, {
    flags: BatchFlag.IDEMPOTENT | BatchFlag.WINDOW,
    codec: 0,
    topic: 'orders',
    ...id,
    baseSeq: b * PER_BATCH,
    records: recordsOf(b),
  });
}

function storedCount(): number {
  return env.broker.topics
    .requireTopic('orders')
    .partitions.reduce((n, p) => n + p.read(p.logStartOffset, { maxRecords: 100_000 }).length, 0);
}

describe('idempotent window after a broker restart (raw frames)', () => {
  it('every batch of the last five is a duplicate with its original acks; the sixth back is out of order', async () => {
    await env.start();
    let c = await env.raw();
    const id = await init(c);
    const first: unknown[] = [];
    for (let b = 0; b < 6; b++) first.push(c.decode(ProduceBatchAckReply, await windowed(c, id, b)));
    await env.restart();
    c = await env.raw();
    expect(await init(c, id)).toEqual(id);
    // Oldest in the window first, the newest (the v3 memo's own batch) last: each replayed, nothing appended.
    for (const b of [1, 3, 2, 4, 5]) {
      expect(c.decode(ProduceBatchAckReply, await windowed(c, id, b)), `batch ${b}`).toEqual(first[b]);
    }
    expect(storedCount()).toBe(6 * PER_BATCH);
    // Batch 0 fell out of the five-batch window: a resend of it is neither a duplicate nor next in line.
    expect(c.error(await windowed(c, id, 0))?.code).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE);
    expect(storedCount()).toBe(6 * PER_BATCH);
    // The session goes on where it was: the next batch appends.
    const next = c.decode(ProduceBatchAckReply, await windowed(c, id, 6));
    expect(next.errorCode).toBe(0);
    expect(next.acks).toHaveLength(PER_BATCH);
    expect(storedCount()).toBe(7 * PER_BATCH);
  });
});

const SENDS = 100;
const BATCH_RECORDS = 10;
const valueOf = (i: number) => `v${i}`;

/**
 * A durable producer whose first session goes through `proxy` and whose resumed sessions go to `after()`'s broker
 * once it is up; ten records per batch, no linger, so 100 sends make ten batches of which five go out at once.
 */
function producerThrough(proxy: DroppingProxy, after: () => Promise<string>) {
  let first = true;
  const sink = new IdempotentSink(undefined, {
    producerName: 'windowed',
    reconnect: async (): Promise<Session> => {
      const broker = first ? proxy.address : await after();
      first = false;
      return openSession({ broker, timeoutMs: 5_000 });
    },
    reconnectAttempts: 60,
  });
  return { sink, producer: new Producer(sink, { lingerMs: 0, maxBatchRecords: BATCH_RECORDS }) };
}

/**
 * Sends `warm` (which opens the windowed session), then 100 records while the proxy swallows every reply; waits
 * until `ready` settles (by default: the broker has acked the five batches in flight, a reply going out only after
 * its fsync), then lets `cut` take the broker down and bring it back; returns where each record was acked, in send
 * order.
 */
async function sendAcrossRestart(
  proxy: DroppingProxy,
  producer: Producer,
  sink: IdempotentSink,
  ready: Promise<unknown> | undefined,
  cut: () => Promise<void>,
) {
  await producer.send('orders', { key: 'w', value: 'warm' });
  expect(sink.inFlightPerTopic).toBe(5);
  proxy.holding = true;
  const sends = Array.from({ length: SENDS }, (_, i) =>
    producer.send('orders', { key: `k${i % 7}`, value: valueOf(i) }),
  );
  // Five batches of ten in flight, each appended and fsynced, none answered; the other five wait for the window.
  await (ready ?? eventually(() => proxy.held === 5, { timeoutMs: 10_000 }));
  await cut();
  const acks = await Promise.all(sends);
  return acks.map((a): StoredAt => ({ partition: a.partition, offset: a.offset }));
}

describe('a durable producer with five batches in flight across a broker restart', () => {
  it('graceful stop: the five unanswered batches are replayed from the window, the rest appended once', async () => {
    await env.start();
    const proxy = env.track(await DroppingProxy.start(env.broker.address.port));
    let restarted!: (address: string) => void;
    const up = new Promise<string>((resolve) => (restarted = resolve));
    const { producer, sink } = producerThrough(proxy, () => up);
    try {
      const acks = await sendAcrossRestart(proxy, producer, sink, undefined, async () => {
        expect(storedCount()).toBe(1 + 5 * BATCH_RECORDS);
        await env.broker.stop();
        const broker = await env.start();
        restarted(`127.0.0.1:${broker.address.port}`);
      });
      expect(sink.producerIdentity?.epoch).toBe(0); // resumed, not a new session
      expect(storedCount()).toBe(1 + SENDS);
      await producer.close();
      await env.broker.stop();
      const stored = storedRecords(env.dataDir);
      stored.delete('warm');
      expectExactlyOnce(stored, new Map(acks.map((ack, i) => [valueOf(i), ack])), SENDS);
    } finally {
      await producer.close().catch(() => undefined);
    }
  }, 30_000);
});

const run = useCrashRun('crater-window-restart-');

describe('a durable producer with five batches in flight across a SIGKILLed broker', () => {
  it('the restarted broker replays the five from the window; every send is acked once, nothing stored twice', async () => {
    const victim = await run.start({ topics: ['orders:4'] });
    const port = Number(victim.address.split(':').pop());
    const proxy = await DroppingProxy.start(port);
    let restarted!: (address: string) => void;
    const up = new Promise<string>((resolve) => (restarted = resolve));
    const { producer, sink } = producerThrough(proxy, () => up);
    try {
      const acks = await sendAcrossRestart(proxy, producer, sink, undefined, async () => {
        victim.child.kill('SIGKILL');
        expect(await victim.exited).toBe('SIGKILL');
        // Killed with half of the sends stored: warm and the five unanswered batches.
        expect(storedRecords(run.dataDir).size).toBe(1 + 5 * BATCH_RECORDS);
        restarted((await run.start({ topics: ['orders:4'] })).address);
      });
      expect(sink.producerIdentity?.epoch).toBe(0);
      await producer.close();
      await run.stop();
      const stored = storedRecords(run.dataDir);
      stored.delete('warm');
      expectExactlyOnce(stored, new Map(acks.map((ack, i) => [valueOf(i), ack])), SENDS);
    } finally {
      await producer.close().catch(() => undefined);
      await proxy.close();
    }
  }, 30_000);
});

describe('a durable producer whose newest in-flight batch the broker died inside', () => {
  it('the older four are replayed from the window after the restart, the newest lands once', async () => {
    // The hook passes warm and batches 1-4, and SIGKILLs the child after batch 5's memo, before its data.
    const victim = await run.start({ topics: ['orders:4'], crashAt: 'after-memo-before-data', crashSkip: 5 });
    const proxy = await DroppingProxy.start(Number(victim.address.split(':').pop()));
    let restarted!: (address: string) => void;
    const up = new Promise<string>((resolve) => (restarted = resolve));
    const { producer, sink } = producerThrough(proxy, () => up);
    try {
      const acks = await sendAcrossRestart(proxy, producer, sink, victim.exited, async () => {
        expect(await victim.exited).toBe('SIGKILL');
        expect(storedRecords(run.dataDir).size).toBe(1 + 4 * BATCH_RECORDS);
        restarted((await run.start({ topics: ['orders:4'] })).address);
      });
      expect(sink.producerIdentity?.epoch).toBe(0);
      await producer.close();
      await run.stop();
      const stored = storedRecords(run.dataDir);
      stored.delete('warm');
      expectExactlyOnce(stored, new Map(acks.map((ack, i) => [valueOf(i), ack])), SENDS);
    } finally {
      await producer.close().catch(() => undefined);
      await proxy.close();
    }
  }, 30_000);
});
