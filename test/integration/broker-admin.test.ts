import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { AlterTopicConfigRequest } from '../../src/protocol/messages/alter-topic-config.js';
import { OkReply } from '../../src/protocol/messages/control.js';
import { CreatePartitionsRequest } from '../../src/protocol/messages/create-partitions.js';
import { CreateTopicRequest } from '../../src/protocol/messages/create-topic.js';
import { DeleteTopicRequest } from '../../src/protocol/messages/delete-topic.js';
import { DescribeTopicRequest, TopicDescriptionReply } from '../../src/protocol/messages/describe-topic.js';
import { ListOffsetsRequest, OffsetsReply } from '../../src/protocol/messages/list-offsets.js';
import { ListTopicsRequest, TopicListReply } from '../../src/protocol/messages/list-topics.js';
import { ProduceRequest } from '../../src/protocol/messages/produce.js';
import { Op } from '../../src/protocol/opcodes.js';
import type { BrokerStartOptions } from '../../src/broker/broker.js';
import { resolveConfig } from '../../src/broker/config.js';
import { storageLogFactory } from '../../src/broker/storage-log-factory.js';
import type { PartitionLog } from '../../src/storage/partition-log.js';
import type { RawClient } from '../helpers/raw-client.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker();

async function setup(options: Partial<BrokerStartOptions> = {}): Promise<RawClient> {
  await env.start(options);
  return env.raw();
}

describe('topic administration', () => {
  it('creates topics, lists them sorted with __* hidden, and refuses bad names, ranges and duplicates', async () => {
    const c = await setup();
    for (const name of ['zeta', 'alpha', 'm.i_d-1']) {
      expect((await c.request(CreateTopicRequest, { name, numPartitions: 2 })).op).toBe(OkReply.op);
    }
    await env.broker.internalLog('__consumer_offsets', 1);
    const list = c.decode(TopicListReply, await c.request(ListTopicsRequest, {}));
    expect(list.topics).toEqual(['alpha', 'm.i_d-1', 'zeta']);

    const bad = async (name: string, numPartitions: number) =>
      c.error(await c.request(CreateTopicRequest, { name, numPartitions }));
    expect(await bad('alpha', 1)).toEqual({ code: ErrorCode.INTERNAL, message: "topic 'alpha' already exists" });
    expect((await bad('__mine', 1))?.code).toBe(ErrorCode.BAD_FRAME);
    expect((await bad('x', 0))?.code).toBe(ErrorCode.BAD_FRAME);
    expect((await bad('x', 1025))?.code).toBe(ErrorCode.BAD_FRAME);
    expect((await bad('a/b', 1))?.code).toBe(ErrorCode.BAD_FRAME);
    expect((await bad('-x', 1))?.code).toBe(ErrorCode.BAD_FRAME);
    expect((await bad('..', 1))?.code).toBe(ErrorCode.BAD_FRAME);
    // None of the refusals created anything.
    expect(c.decode(TopicListReply, await c.request(ListTopicsRequest, {})).topics).toHaveLength(3);
  });

  it('grows partitions (ERR 21 when not larger, ERR 18 on internal, ERR 5 when missing)', async () => {
    const c = await setup({ topics: [{ name: 'orders', partitions: 2 }] });
    expect((await c.request(CreatePartitionsRequest, { name: 'orders', newTotal: 4 })).op).toBe(Op.OK);
    const d = c.decode(TopicDescriptionReply, await c.request(DescribeTopicRequest, { name: 'orders' }));
    expect(d.partitionCount).toBe(4);
    expect(c.error(await c.request(CreatePartitionsRequest, { name: 'orders', newTotal: 4 }))?.code).toBe(
      ErrorCode.INVALID_PARTITIONS,
    );
    expect(c.error(await c.request(CreatePartitionsRequest, { name: 'orders', newTotal: 1025 }))?.code).toBe(
      ErrorCode.INVALID_PARTITIONS,
    );
    await env.broker.internalLog('__consumer_offsets', 1);
    expect(c.error(await c.request(CreatePartitionsRequest, { name: '__consumer_offsets', newTotal: 20 }))?.code).toBe(
      ErrorCode.TOPIC_FORBIDDEN,
    );
    expect(c.error(await c.request(CreatePartitionsRequest, { name: 'nope', newTotal: 2 }))?.code).toBe(
      ErrorCode.TOPIC_MISSING,
    );
  });

  it('alters config (sidecar keys only, sorted) and refuses unknown, immutable, non-numeric and non-positive values', async () => {
    const c = await setup({ topics: [{ name: 't', partitions: 1 }] });
    let d = c.decode(TopicDescriptionReply, await c.request(DescribeTopicRequest, { name: 't' }));
    expect(d.config).toEqual([]);
    const alter = (key: string, value: string) =>
      c.request(AlterTopicConfigRequest, { name: 't', entries: [{ key, value }] });
    expect((await alter('retention', '3600')).op).toBe(Op.OK);
    expect((await alter('max_segment_size', '1048576')).op).toBe(Op.OK);
    d = c.decode(TopicDescriptionReply, await c.request(DescribeTopicRequest, { name: 't' }));
    expect(d.config).toEqual([
      { key: 'max_segment_size', value: '1048576' },
      { key: 'retention', value: '3600' },
    ]);
    for (const [key, value] of [
      ['backend', 'commitlog'],
      ['colour', '1'],
      ['retention', 'soon'],
      ['retention', '0'],
      ['retention', '-5'],
    ] as const) {
      expect(c.error(await alter(key, value))?.code).toBe(ErrorCode.INVALID_CONFIG);
    }
    await env.broker.internalLog('__consumer_offsets', 1);
    const internal = await c.request(AlterTopicConfigRequest, {
      name: '__consumer_offsets',
      entries: [{ key: 'retention', value: '1' }],
    });
    expect(c.error(internal)?.code).toBe(ErrorCode.TOPIC_FORBIDDEN);
    const missing = await c.request(DescribeTopicRequest, { name: 'ghost' });
    expect(c.error(missing)).toEqual({ code: ErrorCode.TOPIC_MISSING, message: "topic 'ghost' does not exist" });
  });

  it('deletes a topic and its directory; internal topics are ERR 18', async () => {
    const c = await setup({ topics: [{ name: 'gone', partitions: 1 }] });
    expect((await c.request(DeleteTopicRequest, { name: 'gone' })).op).toBe(Op.OK);
    const fs = await import('node:fs');
    expect(fs.existsSync(`${env.dataDir}/gone`)).toBe(false);
    expect(c.error(await c.request(DeleteTopicRequest, { name: 'gone' }))?.code).toBe(ErrorCode.TOPIC_MISSING);
    await env.broker.internalLog('__consumer_offsets', 1);
    expect(c.error(await c.request(DeleteTopicRequest, { name: '__consumer_offsets' }))?.code).toBe(
      ErrorCode.TOPIC_FORBIDDEN,
    );
  });

  it('refuses the 1025th topic with ERR 6', async () => {
    // Logs that touch no disk: the cap is the registry's, and 1024 real partitions cost seconds to open.
    const noDisk: PartitionLog = {
      backend: 'segmented',
      dir: '',
      logStartOffset: 0n,
      logEndOffset: 0n,
      fsyncCount: 0,
      durableEndOffset: 0n,
      fenced: undefined,
      append: () => ({ offsets: [] }),
      sync: async () => undefined,
      read: () => [],
      offsetForTimestamp: () => ({ offset: 0n, found: false }),
      close: async () => undefined,
    };
    const base = storageLogFactory(resolveConfig({ dataDir: '' }));
    const c = await setup({ logFactory: { ...base, open: async () => noDisk } });
    for (let i = 0; i < 1024; i++) await env.broker.topics.createTopic(`t${i}`, 1);
    expect(c.error(await c.request(CreateTopicRequest, { name: 'one-more', numPartitions: 1 }))?.code).toBe(
      ErrorCode.RATE_LIMITED,
    );
    expect(c.decode(TopicListReply, await c.request(ListTopicsRequest, {})).topics).toHaveLength(1024);
  });

  it('LIST_OFFSETS under acks=none reports bounds with LSO_KNOWN|LOCAL (the HWM is the LEO, so not exact) and answers timestamp queries', async () => {
    const c = await setup({ topics: [{ name: 'o', partitions: 2 }], acks: 'none' });
    const before = BigInt(Date.now());
    const p1 = await c.request(ProduceRequest, {
      codec: 0,
      topic: 'o',
      key: Buffer.from('a'),
      value: Buffer.from('v'),
    });
    expect(p1.op).toBe(Op.PRODUCE_ACK);
    const bounds = c.decode(OffsetsReply, await c.request(ListOffsetsRequest, { topic: 'o' }));
    expect(bounds.forTimes).toBeUndefined();
    // "a" hashes to partition 1 of 2 (0xE40C292C is even).
    expect(bounds.partitions).toEqual([
      { partition: 1, earliest: 0n, latest: 31n, highWatermark: 31n, lso: 31n, flags: 6 },
      { partition: 2, earliest: 0n, latest: 0n, highWatermark: 0n, lso: 0n, flags: 6 },
    ]);
    const times = c.decode(
      OffsetsReply,
      await c.request(ListOffsetsRequest, { topic: 'o', mode: 1, timestampMs: before }),
    );
    expect(times.forTimes).toEqual([
      { partition: 1, offset: 0n, flags: 1 },
      { partition: 2, offset: 0n, flags: 0 },
    ]);
    const badMode = await c.requestFrame(
      Op.LIST_OFFSETS,
      Buffer.concat([Buffer.from([0, 0, 0, 1]), Buffer.from('o'), Buffer.from([7])]),
    );
    expect(c.error(badMode)?.code).toBe(ErrorCode.BAD_FRAME);
    expect(c.error(await c.request(ListOffsetsRequest, { topic: 'nope' }))?.code).toBe(ErrorCode.TOPIC_MISSING);
  });
});
