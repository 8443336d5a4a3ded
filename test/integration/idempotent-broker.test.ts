/**
 * Idempotent producing against a real broker over TCP (raw frames): every row of seed 000's dedup table, the cases
 * pinned in wire.md §13 item 6, single and batch produces interleaved on one (pid, topic), epoch fencing, partial
 * batches and their tail resend, and durable memos replayed after a restart.
 */
import { describe, expect, it } from 'vitest';
import type { BrokerStartOptions } from '../../src/broker/broker.js';
import { resolveConfig } from '../../src/broker/config.js';
import { storageLogFactory } from '../../src/broker/storage-log-factory.js';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { InitProducerIdRequest, ProducerIdReply } from '../../src/protocol/messages/init-producer-id.js';
import { ProduceAckReply } from '../../src/protocol/messages/produce.js';
import { ProduceBatchAckReply, ProduceBatchRequest } from '../../src/protocol/messages/produce-batch.js';
import { ProduceIdempotentRequest } from '../../src/protocol/messages/produce-idempotent.js';
import { BatchFlag, Op } from '../../src/protocol/opcodes.js';
import { decodeMemoValue, encodeMemoKey, PRODUCER_STATE_TOPIC } from '../../src/storage/producer-state-codec.js';
import type { SegmentedLogFaults } from '../../src/storage/segmented-log.js';
import { eventually } from '../helpers/consumer-harness.js';
import type { RawClient } from '../helpers/raw-client.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker({
  topics: [
    { name: 'orders', partitions: 4 },
    { name: 'one', partitions: 1 },
  ],
});

async function start(options: Partial<BrokerStartOptions> = {}): Promise<RawClient> {
  await env.start(options);
  return env.raw();
}

async function restart(options: Partial<BrokerStartOptions> = {}): Promise<RawClient> {
  await env.restart(options);
  return env.raw();
}

const records = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({ key: Buffer.from(`k${from + i}`), value: Buffer.from(`v${from + i}`) }));

async function init(c: RawClient, producerName?: string, resume?: { producerId: bigint; epoch: number }) {
  return c.decode(ProducerIdReply, await c.request(InitProducerIdRequest, { producerName, resume }));
}

interface Pid {
  producerId: bigint;
  epoch: number;
}

function batch(c: RawClient, id: Pid, baseSeq: number, recs: ReturnType<typeof records>, topic = 'orders') {
  return c.request(ProduceBatchRequest, {
    flags: BatchFlag.IDEMPOTENT,
    codec: 0,
    topic,
    ...id,
    baseSeq,
    records: recs,
  });
}

function single(c: RawClient, id: Pid, seq: number, topic = 'orders') {
  return c.request(ProduceIdempotentRequest, {
    ...id,
    seq,
    codec: 0,
    topic,
    key: Buffer.from(`s${seq}`),
    value: Buffer.from(`single ${seq}`),
  });
}

/** Records stored in the topic (offsets are byte positions on the segmented backend, so LEOs are not counts). */
function leo(topic = 'orders'): bigint {
  let n = 0;
  for (const p of env.broker.topics.requireTopic(topic).partitions)
    n += p.read(p.logStartOffset, { maxRecords: 100_000 }).length;
  return BigInt(n);
}

describe('INIT_PRODUCER_ID', () => {
  it('issues ephemeral pids from 1 with epoch 0 for an empty payload or an empty name', async () => {
    const c = await start();
    expect(await init(c)).toEqual({ producerId: 1n, epoch: 0 });
    const d = await env.raw();
    expect(await init(d, '')).toEqual({ producerId: 2n, epoch: 0 });
    expect(env.broker.topics.getTopic(PRODUCER_STATE_TOPIC)).toBeUndefined();
  });

  it('gives a name the same pid and bumps the epoch per INIT, persisted across a restart', async () => {
    let c = await start();
    expect(await init(c, 'app')).toEqual({ producerId: 1n, epoch: 0 });
    expect(await init(c, 'app')).toEqual({ producerId: 1n, epoch: 1 });
    expect(await init(c)).toEqual({ producerId: 2n, epoch: 0 });
    c = await restart();
    expect(await init(c, 'app')).toEqual({ producerId: 1n, epoch: 2 });
    // The ephemeral pid 2 was never persisted, so it is issued again after the restart.
    expect(await init(c)).toEqual({ producerId: 2n, epoch: 0 });
  });

  it('the 65,536th session of a name fails with ERR 7', async () => {
    const c = await start();
    await init(c, 'app');
    env.broker.producerState.producer('app')!.epoch = 0xffff;
    expect(c.error(await c.request(InitProducerIdRequest, { producerName: 'app' }))?.code).toBe(ErrorCode.INTERNAL);
  });
});

describe('checks before the sequence', () => {
  it('ERR 10 before INIT_PRODUCER_ID, for a single record and a batch, appending nothing', async () => {
    const c = await start();
    const id = { producerId: 1n, epoch: 0 };
    expect(c.error(await single(c, id, 0))?.code).toBe(ErrorCode.NO_PRODUCER_ID);
    expect(c.error(await batch(c, id, 0, records(2)))?.code).toBe(ErrorCode.NO_PRODUCER_ID);
    expect(leo()).toBe(0n);
  });

  it('ERR 8 for another pid, ERR 14 over 1,024 records, checked in that order; nothing appended', async () => {
    const c = await start();
    const id = await init(c);
    expect(c.error(await batch(c, { ...id, producerId: 99n }, 0, records(1_025)))?.code).toBe(ErrorCode.BAD_PROTOCOL);
    expect(c.error(await batch(c, id, 0, records(1_025)))?.code).toBe(ErrorCode.BATCH_TOO_LARGE);
    expect(leo()).toBe(0n);
    const ok = c.decode(ProduceBatchAckReply, await batch(c, id, 0, records(1_024)));
    expect(ok.acks).toHaveLength(1_024);
  });

  it('a durable producer is fenced (ERR 50) for any epoch but the current one; an ephemeral one never', async () => {
    const c = await start();
    const old = await init(c, 'app');
    const d = await env.raw();
    const current = await init(d, 'app');
    expect(c.error(await batch(c, old, 0, records(2)))?.code).toBe(ErrorCode.PRODUCER_FENCED);
    expect(c.error(await single(c, old, 0))?.code).toBe(ErrorCode.PRODUCER_FENCED);
    expect(d.error(await batch(d, { ...current, epoch: current.epoch + 1 }, 0, records(1)))?.code).toBe(
      ErrorCode.PRODUCER_FENCED,
    );
    expect(leo()).toBe(0n);
    const e = await env.raw();
    const eph = await init(e);
    expect(e.decode(ProduceBatchAckReply, await batch(e, { ...eph, epoch: 777 }, 0, records(1))).errorCode).toBe(0);
  });
});

describe('the batch dedup table (seed 000, wire.md §13.6)', () => {
  it.each([
    ['ephemeral', undefined],
    ['durable', 'app'],
  ])('%s: fresh, exact duplicate, gap, overlap, regression', async (_kind, name) => {
    const c = await start();
    const id = await init(c, name);
    const first = c.decode(ProduceBatchAckReply, await batch(c, id, 0, records(3)));
    expect(first.errorCode).toBe(0);
    expect(leo()).toBe(3n);
    // Exact duplicate: the same acks come back, nothing is appended, and the content is not compared.
    const dup = c.decode(ProduceBatchAckReply, await batch(c, id, 0, records(3, 100)));
    expect(dup).toEqual(first);
    expect(leo()).toBe(3n);
    expect(c.error(await batch(c, id, 5, records(1)))?.code).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE);
    expect(c.error(await batch(c, id, 1, records(1)))?.code).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE);
    expect(c.error(await batch(c, id, 2, records(3)))?.code).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE);
    expect(c.error(await batch(c, id, 0, records(2)))?.code).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE);
    expect(leo()).toBe(3n);
    const next = c.decode(ProduceBatchAckReply, await batch(c, id, 3, records(2, 3)));
    expect(next.acks).toHaveLength(2);
    expect(leo()).toBe(5n);
    // Only the last batch is memoized: the first one is now a regression.
    expect(c.error(await batch(c, id, 0, records(3)))?.code).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE);
  });

  it('single records: seq = last + 1 appends, seq = last replays its ack, anything else is ERR 11', async () => {
    const c = await start();
    const id = await init(c);
    expect(c.error(await single(c, id, 1))?.code).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE);
    const a0 = c.decode(ProduceAckReply, await single(c, id, 0));
    expect(c.decode(ProduceAckReply, await single(c, id, 0))).toEqual(a0);
    expect(c.error(await single(c, id, 2))?.code).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE);
    c.decode(ProduceAckReply, await single(c, id, 1));
    expect(c.error(await single(c, id, 0))?.code).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE);
    expect(leo()).toBe(2n);
  });

  it('single and batch produces interleave on one (pid, topic) counter', async () => {
    const c = await start();
    const id = await init(c, 'app');
    c.decode(ProduceAckReply, await single(c, id, 0));
    const b = c.decode(ProduceBatchAckReply, await batch(c, id, 1, records(3)));
    // After a batch, a single produce of the batch's last sequence replays that record's ack.
    expect(c.decode(ProduceAckReply, await single(c, id, 3))).toEqual(b.acks[2]);
    c.decode(ProduceAckReply, await single(c, id, 4));
    // After a single record, a batch that repeats it is not a batch duplicate.
    expect(c.error(await batch(c, id, 4, records(1)))?.code).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE);
    expect(c.decode(ProduceBatchAckReply, await batch(c, id, 5, records(2))).acks).toHaveLength(2);
    expect(leo()).toBe(7n);
    // Sequences are per topic: "one" starts at 0.
    expect(c.decode(ProduceBatchAckReply, await batch(c, id, 0, records(1), 'one')).errorCode).toBe(0);
  });

  it('pipelined batches are checked in request order', async () => {
    const c = await start();
    const id = await init(c, 'app');
    const correls = [0, 2, 4, 6].map((base) =>
      c.send(ProduceBatchRequest, {
        flags: BatchFlag.IDEMPOTENT,
        codec: 0,
        topic: 'orders',
        ...id,
        baseSeq: base,
        records: records(2, base),
      }),
    );
    for (const correl of correls) {
      const reply = c.decode(ProduceBatchAckReply, await c.waitFor((f) => f.correl.equals(correl)));
      expect(reply.errorCode).toBe(0);
    }
    expect(leo()).toBe(8n);
  });
});

describe('partial batches', () => {
  it('memoize the prefix; the tail resent from last + 1 is fresh, the whole batch again is ERR 11', async () => {
    const faults: SegmentedLogFaults = {};
    const c = await start({ logFactory: storageLogFactory(resolveConfig({ dataDir: env.dataDir }), { faults }) });
    const id = await init(c, 'app');
    faults.failAfterRecords = 3;
    const partial = c.decode(ProduceBatchAckReply, await batch(c, id, 0, records(10), 'one'));
    expect(partial.acks).toHaveLength(3);
    expect(partial.errorCode).toBe(ErrorCode.INTERNAL);
    faults.failAfterRecords = undefined;
    expect(c.error(await batch(c, id, 0, records(10), 'one'))?.code).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE);
    const tail = c.decode(ProduceBatchAckReply, await batch(c, id, 3, records(7, 3), 'one'));
    expect(tail.errorCode).toBe(0);
    const log = env.broker.topics.requireTopic('one').partitions[0]!;
    const stored = log.read(0n, { maxRecords: 100 }).map((r) => r.key.toString());
    expect(stored).toEqual(records(10).map((r) => r.key.toString()));
  });

  it('a batch that lands nothing is an ERROR frame and leaves the sequence where it was', async () => {
    const faults: SegmentedLogFaults = {};
    const c = await start({ logFactory: storageLogFactory(resolveConfig({ dataDir: env.dataDir }), { faults }) });
    const id = await init(c);
    faults.failAfterRecords = 0;
    expect(c.error(await batch(c, id, 0, records(2), 'one'))?.code).toBe(ErrorCode.INTERNAL);
    faults.failAfterRecords = undefined;
    expect(c.decode(ProduceBatchAckReply, await batch(c, id, 0, records(2), 'one')).errorCode).toBe(0);
  });
});

describe('durable memos', () => {
  it('one data fsync and one __producer_state fsync per batch; the memo is a v3 value with every ack', async () => {
    const c = await start();
    const id = await init(c, 'app');
    const before = env.broker.fsyncCount;
    const reply = c.decode(
      ProduceBatchAckReply,
      await batch(
        c,
        id,
        0,
        records(20, 0).map((r) => ({ ...r, key: Buffer.from('same') })),
      ),
    );
    expect(env.broker.fsyncCount - before).toBe(2);
    const key = encodeMemoKey(id.producerId, 'orders');
    const topic = env.broker.topics.requireTopic(PRODUCER_STATE_TOPIC);
    const found = topic.partitions
      .flatMap((p) => p.read(p.logStartOffset, { maxRecords: 100 }))
      .filter((r) => r.key.equals(key));
    expect(found).toHaveLength(1);
    const memo = decodeMemoValue(found[0]!.value);
    expect(memo.ok && memo.value.version).toBe(3);
    expect(memo.ok && memo.value.batch).toEqual({ baseSeq: 0, acks: reply.acks });
    expect(memo.ok && memo.value.lastSeq).toBe(19);
  });

  it("a durable producer's batch acks are replayed after a broker restart (resumed session)", async () => {
    let c = await start();
    const id = await init(c, 'app');
    const first = c.decode(ProduceBatchAckReply, await batch(c, id, 0, records(5)));
    c = await restart();
    expect(await init(c, 'app', id)).toEqual(id);
    expect(c.decode(ProduceBatchAckReply, await batch(c, id, 0, records(5)))).toEqual(first);
    expect(leo()).toBe(5n);
    // A new session (epoch bump) starts its sequences at 0 again: the old memo no longer applies.
    const next = await init(c, 'app');
    expect(next.epoch).toBe(id.epoch + 1);
    expect(c.decode(ProduceBatchAckReply, await batch(c, next, 0, records(1))).acks).toHaveLength(1);
    expect(leo()).toBe(6n);
    // The old session can no longer be resumed.
    expect(c.error(await c.request(InitProducerIdRequest, { producerName: 'app', resume: id }))?.code).toBe(
      ErrorCode.PRODUCER_FENCED,
    );
  });

  it('a memo that cannot be appended: ERR 7 (batch and single), no data appended, the sequence stays', async () => {
    const c = await start();
    const id = await init(c, 'app');
    const topic = env.broker.topics.requireTopic(PRODUCER_STATE_TOPIC);
    const appends = topic.partitions.map((log) => log.append.bind(log));
    for (const log of topic.partitions) log.append = () => ({ offsets: [], error: new Error('disk full') });
    const failed = c.error(await batch(c, id, 0, records(3)));
    expect(failed?.code).toBe(ErrorCode.INTERNAL);
    expect(failed?.message).toMatch(/disk full/);
    expect(c.error(await single(c, id, 0))?.code).toBe(ErrorCode.INTERNAL);
    // The memo goes first, so a memo that cannot be written keeps the data out too: a retry is simply fresh.
    expect(leo()).toBe(0n);
    topic.partitions.forEach((log, i) => (log.append = appends[i]!));
    expect(c.decode(ProduceBatchAckReply, await batch(c, id, 0, records(3))).errorCode).toBe(0);
    expect(leo()).toBe(3n);
  });

  it('idle durable producers expire: watermark, identity and memo tombstones; pids are not reused', async () => {
    let now = 1_000_000n;
    const c = await start({ clock: () => now, producerState: { expiryMs: 60_000, sweepIntervalMs: 0 } });
    const id = await init(c, 'app');
    c.decode(ProduceBatchAckReply, await batch(c, id, 0, records(2)));
    now += 120_000n;
    expect(await env.broker.producerState.sweep()).toEqual([]); // a live connection keeps it
    await c.close();
    await eventually(() => env.broker.producerState.producer('app')!.liveConnections === 0);
    expect(await env.broker.producerState.sweep()).toEqual(['app']);
    const d = await restart({ clock: () => now, producerState: { expiryMs: 60_000, sweepIntervalMs: 0 } });
    // The identity is gone, so the name starts again at epoch 0, with a pid past the watermark.
    expect(await init(d, 'app')).toEqual({ producerId: 2n, epoch: 0 });
  });
});

describe('op registration', () => {
  it('INIT_PRODUCER_ID accepts an empty payload (wire.md §13.1)', async () => {
    const c = await start();
    const reply = await c.requestFrame(Op.INIT_PRODUCER_ID);
    expect(c.decode(ProducerIdReply, reply)).toEqual({ producerId: 1n, epoch: 0 });
  });
});
