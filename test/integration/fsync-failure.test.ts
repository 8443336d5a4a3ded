/**
 * Issue 11 items 1 and 2 against a real broker whose storage runs over the power-loss file layer: a failed fsync is
 * never acknowledged, now or later (the partition is fenced, the session that wrote to it is over, no replay acks
 * from its state), and reads stop at what is durable (FETCH and LIST_OFFSETS never show bytes no fsync covered).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Broker } from '../../src/broker/broker.js';
import { type Client, connect } from '../../src/client/client.js';
import { BrokerError } from '../../src/errors.js';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { InitProducerIdRequest, ProducerIdReply } from '../../src/protocol/messages/init-producer-id.js';
import { ProduceIdempotentRequest } from '../../src/protocol/messages/produce-idempotent.js';
import { OffsetsFlag, Op } from '../../src/protocol/opcodes.js';
import { installFileLayer } from '../../src/storage/file-io.js';
import { PowerLossFs } from '../helpers/power-loss-fs.js';
import { RawClient } from '../helpers/raw-client.js';

let dataDir: string;
let layer: PowerLossFs;
let restore: () => void;
let broker: Broker | undefined;
const closers: Array<() => Promise<unknown>> = [];

beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-fsync-broker-'));
  layer = new PowerLossFs(dataDir);
  restore = installFileLayer(layer);
});

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  await broker?.stop();
  broker = undefined;
  restore();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function start(acks: 'leader' | 'none' = 'leader', partitions = 1): Promise<Client> {
  broker = await Broker.start({ dataDir, port: 0, acks, topics: [{ name: 'orders', partitions }] });
  const client = await connect({ broker: `127.0.0.1:${broker.address.port}` });
  closers.push(() => client.close());
  return client;
}

const partitionLog = (): string => path.join(dataDir, 'orders', 'partition-1');
const failOrdersFsyncs = (): void => {
  layer.failFsyncs = (file) => file.startsWith(partitionLog() + path.sep);
};
const stored = (): string[] =>
  broker!.topics
    .requireTopic('orders')
    .partitions[0]!.read(0n, { maxRecords: 100 })
    .map((r) => r.value.toString());

describe('a failed fsync', () => {
  it('is not acknowledged, and neither is anything after it: B gets no ack pointing at A, and A is not served', async () => {
    const client = await start();
    const producer = client.producer({ producerName: 'app' });
    closers.push(() => producer.close());
    await producer.send('orders', { key: 'k', value: 'before' });

    failOrdersFsyncs();
    const a = await producer.send('orders', { key: 'k', value: 'A' }).catch((e: unknown) => e);
    expect(a).toBeInstanceOf(BrokerError);
    expect((a as BrokerError).errorCode).toBe(ErrorCode.INTERNAL);
    expect((a as BrokerError).message).not.toContain(dataDir);
    layer.failFsyncs = undefined;

    // On the old code this resolved with A's ack (partition 1 offset of A) and B was never stored.
    const b = await producer.send('orders', { key: 'k', value: 'B' }).catch((e: unknown) => e);
    expect(b).toBeInstanceOf(BrokerError);
    expect((b as BrokerError).errorCode).toBe(ErrorCode.INTERNAL);
    expect(stored()).not.toContain('B');

    // Reads stop at the durable end: A was written to the page cache but no fsync covered it.
    const fetched = await client.fetch('orders', 'g', { maxRecords: 10 });
    expect(fetched.records.map((r) => r.value.toString())).toEqual(['before']);
    const [offsets] = (await client.listOffsets('orders')).partitions;
    expect(offsets!.highWatermark).toBeLessThan(offsets!.latest);
    expect(offsets!.flags & OffsetsFlag.HWM_EXACT).toBe(OffsetsFlag.HWM_EXACT);
  });

  it('a resend of the exact frame that failed is refused, never acked without an fsync', async () => {
    await start();
    const raw = await RawClient.authenticated(broker!.address.port);
    closers.push(() => raw.close());
    const init = raw.decode(ProducerIdReply, await raw.request(InitProducerIdRequest, { producerName: '' }));
    const frame = {
      producerId: init.producerId,
      epoch: init.epoch,
      seq: 0,
      codec: 0,
      topic: 'orders',
      key: Buffer.from('k'),
      value: Buffer.from('A'),
    };

    failOrdersFsyncs();
    const first = await raw.request(ProduceIdempotentRequest, frame);
    expect(raw.error(first)?.code).toBe(ErrorCode.INTERNAL);
    layer.failFsyncs = undefined;
    const opsBefore = layer.operations;
    const resent = await raw.request(ProduceIdempotentRequest, frame);
    expect(resent.op).toBe(Op.ERROR);
    expect(raw.error(resent)?.code).toBe(ErrorCode.INTERNAL);
    // And a different record on the next sequence of that session is refused too: the session is over.
    const next = await raw.request(ProduceIdempotentRequest, { ...frame, seq: 1, value: Buffer.from('B') });
    expect(raw.error(next)?.code).toBe(ErrorCode.INTERNAL);
    expect(layer.operations).toBe(opsBefore);
  });

  it('after a restart recovery decides what survived, and the producer goes on in a new session', async () => {
    let client = await start();
    let producer = client.producer({ producerName: 'app' });
    closers.push(() => producer.close());
    failOrdersFsyncs();
    await expect(producer.send('orders', { key: 'k', value: 'A' })).rejects.toBeInstanceOf(BrokerError);
    layer.failFsyncs = undefined;
    await producer.close();
    await client.close();
    await broker!.stop();
    client = await start();
    producer = client.producer({ producerName: 'app' });
    closers.push(() => producer.close());
    const ack = await producer.send('orders', { key: 'k', value: 'C' });
    expect(stored().at(-1)).toBe('C');
    const fetched = await client.fetch('orders', 'g2', { maxRecords: 10 });
    expect(fetched.records.at(-1)?.offset).toBe(ack.offset);
  });
});

describe('the read ceiling', () => {
  it('keeps SUBSCRIBE from pushing what no fsync covered', async () => {
    const client = await start('leader', 2);
    // A key for each partition (the key hash decides).
    const keyFor = new Map<number, string>();
    for (let i = 0; keyFor.size < 2; i++) {
      const ack = await client.produce('orders', { key: `k${i}`, value: `warm-${i}` });
      if (!keyFor.has(ack.partition)) keyFor.set(ack.partition, `k${i}`);
    }
    const sub = client.subscribe('orders', 'pushed');
    const seen: string[] = [];
    const it = sub[Symbol.asyncIterator]();
    const until = async (value: string): Promise<void> => {
      for (;;) {
        const next = await it.next();
        if (next.done) throw new Error(`subscription ended before ${value}`);
        seen.push(next.value.value.toString());
        if (seen.at(-1) === value) return;
      }
    };
    failOrdersFsyncs();
    await expect(client.produce('orders', { key: keyFor.get(1)!, value: 'A' })).rejects.toBeInstanceOf(BrokerError);
    layer.failFsyncs = undefined;
    // Partition 2 still works. A push pass reads every partition, so once two later passes delivered records
    // written after A, any pass that could have pushed A is over.
    await client.produce('orders', { key: keyFor.get(2)!, value: 'after-1' });
    await until('after-1');
    await client.produce('orders', { key: keyFor.get(2)!, value: 'after-2' });
    await until('after-2');
    await it.return?.();
    expect(seen).not.toContain('A');
  });

  it('under acks=none is the LEO, and LIST_OFFSETS says the HWM is not exact', async () => {
    const client = await start('none');
    const producer = client.producer();
    closers.push(() => producer.close());
    const ack = await producer.send('orders', { key: 'k', value: 'x' });
    const [offsets] = (await client.listOffsets('orders')).partitions;
    expect(offsets!.highWatermark).toBe(offsets!.latest);
    expect(offsets!.latest).toBeGreaterThan(ack.offset);
    expect(offsets!.flags & OffsetsFlag.HWM_EXACT).toBe(0);
    const fetched = await client.fetch('orders', 'g', { maxRecords: 10 });
    expect(fetched.records.map((r) => r.value.toString())).toEqual(['x']);
  });
});
