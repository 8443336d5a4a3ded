/**
 * The client's idempotent producer against a real broker: sequence bookkeeping by acks received, the tail of a
 * partial batch resent as fresh, and a lost reply (the connection cut by a proxy after the broker answered) resent
 * on a resumed session so that the original acks come back and nothing is appended twice.
 */
import { describe, expect, it } from 'vitest';
import type { BrokerStartOptions } from '../../src/broker/broker.js';
import { resolveConfig } from '../../src/broker/config.js';
import { storageLogFactory } from '../../src/broker/storage-log-factory.js';
import type { Client } from '../../src/client/client.js';
import { IdempotentSink } from '../../src/client/moonmq/idempotent-sink.js';
import { Producer } from '../../src/client/producer/producer.js';
import { openSession } from '../../src/client/moonmq/session.js';
import { ConnectionError, UsageError } from '../../src/errors.js';
import { Op } from '../../src/protocol/opcodes.js';
import type { SegmentedLogFaults } from '../../src/storage/segmented-log.js';
import { useTempBroker } from '../helpers/temp-broker.js';
import { DroppingProxy } from '../helpers/dropping-proxy.js';

const env = useTempBroker({
  topics: [
    { name: 'orders', partitions: 4 },
    { name: 'one', partitions: 1 },
  ],
});

async function start(options: Partial<BrokerStartOptions> = {}): Promise<Client> {
  await env.start(options);
  return env.client();
}

/** Closes `p` after the test; its close may fail once the connection it used was cut, which is not what is tested. */
function track(p: Producer): Producer {
  env.track({ close: () => p.close().catch(() => undefined) });
  return p;
}

function stored(topic: string): string[] {
  return env.broker.topics
    .requireTopic(topic)
    .partitions.flatMap((p) => p.read(p.logStartOffset, { maxRecords: 100_000 }))
    .map((r) => r.value.toString());
}

const values = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({ key: `k${from + i}`, value: `v${from + i}` }));

describe('idempotent producer', () => {
  it('advances each topic sequence by the acks received and exposes its identity', async () => {
    const c = await start();
    const producer = track(c.producer({ idempotent: true }));
    expect(producer.identity).toBeUndefined();
    await producer.sendBatch('orders', values(5));
    await producer.send('orders', { key: 'x', value: 'single' });
    await producer.sendBatch('one', values(2));
    expect(producer.identity).toEqual({ producerId: 1n, epoch: 0 });
    expect(stored('orders')).toHaveLength(6);
    expect(stored('one')).toEqual(['v0', 'v1']);
  });

  it('splits at 1,024 records per idempotent batch and rejects a larger maxBatchRecords', async () => {
    const c = await start();
    const producer = track(c.producer({ producerName: 'app' }));
    const { acks, error } = await producer.sendBatch('orders', values(2_500));
    expect(error).toBeUndefined();
    expect(acks).toHaveLength(2_500);
    expect(new Set(stored('orders')).size).toBe(2_500);
    expect(() => c.producer({ idempotent: true, maxBatchRecords: 1_025 })).toThrow(UsageError);
  });

  it('after a partial batch, the tail resent by the caller lands as fresh records', async () => {
    const faults: SegmentedLogFaults = {};
    const c = await start({ logFactory: storageLogFactory(resolveConfig({ dataDir: env.dataDir }), { faults }) });
    const producer = track(c.producer({ producerName: 'app' }));
    await producer.send('one', { value: 'first' });
    faults.failAfterRecords = 3;
    const batch = values(10);
    const partial = await producer.sendBatch('one', batch);
    expect(partial.acks).toHaveLength(3);
    expect(partial.error?.message).toMatch(/ERR_INTERNAL/);
    faults.failAfterRecords = undefined;
    const rest = await producer.sendBatch('one', batch.slice(partial.acks.length));
    expect(rest.error).toBeUndefined();
    expect(stored('one')).toEqual(['first', ...batch.map((r) => r.value)]);
  });

  it('a lost reply: the same batch is resent on a resumed session and its original acks come back', async () => {
    await start();
    const proxy = env.track(await DroppingProxy.start(env.broker.address.port));
    const address = proxy.address;
    const producer = track(
      new Producer(
        new IdempotentSink(undefined, { producerName: 'app', reconnect: () => openSession({ broker: address }) }),
      ),
    );
    await producer.sendBatch('orders', values(4));
    proxy.armedOp = Op.PRODUCE_BATCH_ACK;
    const { acks, error } = await producer.sendBatch('orders', values(6, 4));
    expect(proxy.dropped).toBe(1);
    expect(error).toBeUndefined();
    expect(stored('orders').sort()).toEqual(
      values(10)
        .map((r) => r.value)
        .sort(),
    );
    // The acks are those of the first (lost) attempt: every one names a record that holds the value sent.
    for (const [i, ack] of acks.entries()) {
      const [rec] = env.broker.topics
        .requireTopic('orders')
        .partitions[ack.partition - 1]!.read(ack.offset, { maxRecords: 1 });
      expect(rec?.value.toString()).toBe(`v${4 + i}`);
    }
    expect(producer.identity?.epoch).toBe(0);
  });

  it('an ephemeral producer cannot resume: a lost connection fails the send as of unknown outcome', async () => {
    await start();
    const proxy = env.track(await DroppingProxy.start(env.broker.address.port));
    const address = proxy.address;
    const producer = track(
      new Producer(new IdempotentSink(undefined, { reconnect: () => openSession({ broker: address }) })),
    );
    await producer.sendBatch('orders', values(2));
    proxy.armedOp = Op.PRODUCE_BATCH_ACK;
    await expect(producer.sendBatch('orders', values(2, 2))).rejects.toThrow(ConnectionError);
    // The batch landed before the reply was cut; the next send starts a new producer session with a new pid.
    expect(stored('orders')).toHaveLength(4);
    await producer.sendBatch('orders', values(1, 4));
    expect(producer.identity?.producerId).toBe(2n);
  });
});
