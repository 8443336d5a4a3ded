import { describe, expect, it } from 'vitest';
import type { BrokerStartOptions } from '../../src/broker/broker.js';
import { resolveConfig } from '../../src/broker/config.js';
import { storageLogFactory } from '../../src/broker/storage-log-factory.js';
import { decompressValue } from '../../src/protocol/compression.js';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { ProduceBatchAckReply, ProduceBatchRequest } from '../../src/protocol/messages/produce-batch.js';
import { ProduceAckReply, ProduceRequest } from '../../src/protocol/messages/produce.js';
import { BatchFlag, Op } from '../../src/protocol/opcodes.js';
import { RecordAttr } from '../../src/storage/record.js';
import type { SegmentedLogFaults } from '../../src/storage/segmented-log.js';
import type { RawClient } from '../helpers/raw-client.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker({ topics: [{ name: 'orders', partitions: 4 }] });

async function start(options: Partial<BrokerStartOptions> = {}): Promise<RawClient> {
  await env.start(options);
  return env.raw();
}

async function restart(): Promise<RawClient> {
  await env.restart();
  return env.raw();
}

const buf = (s: string) => Buffer.from(s);
const records = (n: number, key = (i: number) => `k${i}`) =>
  Array.from({ length: n }, (_, i) => ({ key: buf(key(i)), value: buf(`value-${i}`) }));

describe('PRODUCE', () => {
  it('stores a keyed record in fnv1a(key) mod N + 1, acks after fsync, and survives a restart', async () => {
    const c = await start();
    const ack = c.decode(
      ProduceAckReply,
      await c.request(ProduceRequest, { codec: 0, topic: 'orders', key: buf('key-1'), value: buf('v') }),
    );
    expect(ack).toEqual({ partition: 3, offset: 0n });
    expect(env.broker.fsyncCount).toBe(1);
    await restart();
    const [rec] = env.broker.topics.requireTopic('orders').partitions[2]!.read(0n, { maxRecords: 10 });
    expect(rec?.key.toString()).toBe('key-1');
    expect(rec?.value.toString()).toBe('v');
    const ts = rec!.timestamp;
    expect(ts > BigInt(Date.now() - 60_000) && ts <= BigInt(Date.now())).toBe(true);
  });

  it('compresses values with gzip and snappy before storing; codec 3 is ERR 7 and writes nothing', async () => {
    const c = await start({ acks: 'none' });
    const value = buf('x'.repeat(500));
    for (const codec of [1, 2]) {
      const ack = c.decode(
        ProduceAckReply,
        await c.request(ProduceRequest, { codec, topic: 'orders', key: buf('a'), value }),
      );
      const [rec] = env.broker.topics
        .requireTopic('orders')
        .partitions[ack.partition - 1]!.read(ack.offset, { maxRecords: 1 });
      expect(rec!.attrs & RecordAttr.CODEC_MASK).toBe(codec);
      expect(rec!.value.length).toBeLessThan(value.length);
      expect(decompressValue(codec, rec!.value).equals(value)).toBe(true);
    }
    const leo = () => env.broker.topics.requireTopic('orders').partitions.map((p) => p.logEndOffset);
    const before = leo();
    const err = c.error(await c.request(ProduceRequest, { codec: 3, topic: 'orders', key: buf('a'), value }));
    expect(err).toEqual({ code: ErrorCode.INTERNAL, message: 'compression codec 3 unavailable on this broker' });
    expect(leo()).toEqual(before);
    expect(env.broker.fsyncCount).toBe(0);
  });

  it('a missing topic is ERR 5 "... does not exist" and is never auto-created', async () => {
    const c = await start();
    const err = c.error(await c.request(ProduceRequest, { codec: 0, topic: 'nope', key: buf(''), value: buf('v') }));
    expect(err).toEqual({ code: ErrorCode.TOPIC_MISSING, message: "topic 'nope' does not exist" });
    expect(env.broker.topics.getTopic('nope')).toBeUndefined();
  });

  it('pipelined produces are answered in request order', async () => {
    const c = await start();
    const correls = Array.from({ length: 50 }, (_, i) =>
      c.send(ProduceRequest, { codec: 0, topic: 'orders', key: buf(`k${i % 3}`), value: buf(`${i}`) }),
    );
    const replies = [];
    for (const correl of correls) replies.push(await c.waitFor((f) => f.correl.equals(correl)));
    expect(replies.every((f) => f.op === Op.PRODUCE_ACK)).toBe(true);
    expect(c.frames).toEqual([]);
  });
});

describe('PRODUCE_BATCH', () => {
  it('a batch of 20 records to one partition costs exactly 1 fsync and acks in list order', async () => {
    const c = await start({ topics: [{ name: 'one', partitions: 1 }] });
    const before = env.broker.fsyncCount;
    const reply = c.decode(
      ProduceBatchAckReply,
      await c.request(ProduceBatchRequest, { flags: 0, codec: 0, topic: 'one', records: records(20) }),
    );
    expect(env.broker.fsyncCount - before).toBe(1);
    expect(reply.errorCode).toBe(0);
    expect(reply.errorMessage).toBe('');
    expect(reply.acks).toHaveLength(20);
    expect(reply.acks.every((a, i) => a.partition === 1 && (i === 0 || a.offset > reply.acks[i - 1]!.offset))).toBe(
      true,
    );
  });

  it('500 keyed records over 4 partitions cost 4 fsyncs (one per touched partition)', async () => {
    const c = await start();
    const reply = c.decode(
      ProduceBatchAckReply,
      await c.request(ProduceBatchRequest, { flags: 0, codec: 0, topic: 'orders', records: records(500) }),
    );
    expect(new Set(reply.acks.map((a) => a.partition)).size).toBe(4);
    expect(env.broker.fsyncCount).toBe(4);
  });

  it('empty keys are sticky: the first 16 records of a batch share a partition', async () => {
    const c = await start();
    const reply = c.decode(
      ProduceBatchAckReply,
      await c.request(ProduceBatchRequest, { flags: 0, codec: 0, topic: 'orders', records: records(17, () => '') }),
    );
    const first = reply.acks[0]!.partition;
    expect(reply.acks.slice(0, 16).every((a) => a.partition === first)).toBe(true);
    expect(reply.acks[16]!.partition).not.toBe(first);
  });

  it('a write failure after 3 records leaves 3 durable records, 3 acks and err 7', async () => {
    const faults: SegmentedLogFaults = {};
    let c = await start({
      topics: [{ name: 'one', partitions: 1 }],
      logFactory: storageLogFactory(resolveConfig({ dataDir: env.dataDir }), { faults }),
    });
    faults.failAfterRecords = 3;
    const reply = c.decode(
      ProduceBatchAckReply,
      await c.request(ProduceBatchRequest, { flags: 0, codec: 0, topic: 'one', records: records(10) }),
    );
    expect(reply.acks).toHaveLength(3);
    expect(reply.errorCode).toBe(ErrorCode.INTERNAL);
    expect(reply.errorMessage).toMatch(/^3 of 10 records appended/);
    expect(env.broker.fsyncCount).toBe(1);
    c = await restart();
    const stored = env.broker.topics.requireTopic('one').partitions[0]!.read(0n, { maxRecords: 100 });
    expect(stored.map((r) => r.key.toString())).toEqual(['k0', 'k1', 'k2']);
    expect(c.closed).toBe(false);
  });

  it('a failure before anything is appended answers an ERROR frame, not an ACK', async () => {
    const faults: SegmentedLogFaults = { failAfterRecords: 0 };
    const c = await start({
      topics: [{ name: 'one', partitions: 1 }],
      logFactory: storageLogFactory(resolveConfig({ dataDir: env.dataDir }), { faults }),
    });
    const reply = await c.request(ProduceBatchRequest, { flags: 0, codec: 0, topic: 'one', records: records(2) });
    expect(c.error(reply)?.code).toBe(ErrorCode.INTERNAL);
    expect(env.broker.topics.requireTopic('one').partitions[0]!.logEndOffset).toBe(0n);
  });

  it('count 0 and count > 10,000 are ERR 1; idempotent batches are ERR 10; nothing is appended', async () => {
    const c = await start({ topics: [{ name: 'one', partitions: 1 }] });
    const head = Buffer.from([0, 0, 0, 0, 0, 3, ...buf('one')]);
    const zero = await c.requestFrame(Op.PRODUCE_BATCH, Buffer.concat([head, Buffer.from([0, 0, 0, 0])]));
    expect(c.error(zero)?.code).toBe(ErrorCode.BAD_FRAME);
    const huge = Buffer.concat([head, Buffer.from([0, 0, 0x27, 0x11]), Buffer.alloc(10_001 * 8)]);
    expect(c.error(await c.requestFrame(Op.PRODUCE_BATCH, huge))?.code).toBe(ErrorCode.BAD_FRAME);
    const idem = await c.request(ProduceBatchRequest, {
      flags: BatchFlag.IDEMPOTENT,
      codec: 0,
      topic: 'one',
      producerId: 1n,
      baseSeq: 0,
      epoch: 0,
      records: records(1),
    });
    expect(c.error(idem)?.code).toBe(ErrorCode.NO_PRODUCER_ID);
    const missing = await c.request(ProduceBatchRequest, { flags: 0, codec: 0, topic: 'ghost', records: records(1) });
    expect(c.error(missing)?.code).toBe(ErrorCode.TOPIC_MISSING);
    expect(env.broker.topics.requireTopic('one').partitions[0]!.logEndOffset).toBe(0n);
  });

  it('with BATCH_FLAG_HEADERS the headers are stored (attrs 0x10); acks=none never fsyncs', async () => {
    const c = await start({ topics: [{ name: 'one', partitions: 1 }], acks: 'none' });
    const headers = [
      { name: 'trace', value: buf('abc') },
      { name: 'trace', value: buf('def') },
    ];
    const reply = c.decode(
      ProduceBatchAckReply,
      await c.request(ProduceBatchRequest, {
        flags: BatchFlag.HEADERS,
        codec: 2,
        topic: 'one',
        records: [{ key: buf('k'), value: buf('v'), headers }],
      }),
    );
    expect(reply.acks).toHaveLength(1);
    const [rec] = env.broker.topics.requireTopic('one').partitions[0]!.read(0n, { maxRecords: 1 });
    expect(rec!.attrs).toBe(RecordAttr.HEADERS | 2);
    expect(rec!.headers).toEqual(headers);
    expect(env.broker.fsyncCount).toBe(0);
  });
});
