import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { partitionForKey } from '../../src/protocol/fnv1a.js';
import { ProduceBatchAckReply, ProduceBatchRequest } from '../../src/protocol/messages/produce-batch.js';
import { BatchFlag } from '../../src/protocol/opcodes.js';
import type { PartitionLog } from '../../src/storage/partition-log.js';
import type { SegmentedLogFaults } from '../../src/storage/segmented-log.js';
import { resolveConfig } from '../../src/broker/config.js';
import { storageLogFactory } from '../../src/broker/storage-log-factory.js';
import { prng } from '../helpers/prng.js';
import { useTempBroker } from '../helpers/temp-broker.js';

/**
 * A plain PRODUCE_BATCH takes the broker's table path (broker/produce-table.ts); one with the HEADERS flag and no
 * headers takes the record path and stores the same bytes. The two must land identically.
 */
const env = useTempBroker({ clock: () => 1_700_000_000_000n });

function batch(seed: number, n: number) {
  const rnd = prng(seed);
  return Array.from({ length: n }, (_, i) => ({
    key: Buffer.from(`key-${i}-${'x'.repeat(Math.floor(rnd() * 30))}`),
    value: Buffer.alloc(rnd() < 0.1 ? 0 : Math.floor(rnd() * 2000), i),
  }));
}

function stored(log: PartitionLog) {
  return log.read(0n, { maxRecords: 10_000, maxBytes: 1 << 30 }).map((r) => ({
    offset: r.offset,
    attrs: r.attrs,
    timestamp: r.timestamp,
    key: r.key.toString('hex'),
    value: r.value.toString('hex'),
  }));
}

describe('the table path of PRODUCE_BATCH', () => {
  it('acks and stores what the record path does, partition for partition, byte for byte', async () => {
    const broker = await env.start();
    await broker.topics.createTopic('plain', 4);
    await broker.topics.createTopic('viaRecords', 4);
    const c = await env.raw();
    const records = batch(1, 400);
    const send = async (topic: string, flags: number) =>
      c.decode(ProduceBatchAckReply, await c.request(ProduceBatchRequest, { flags, codec: 0, topic, records }));
    const fast = await send('plain', 0);
    const slow = await send('viaRecords', BatchFlag.HEADERS);
    expect(fast).toEqual(slow);
    expect(fast.errorCode).toBe(ErrorCode.NONE);
    expect(fast.acks.map((a) => a.partition)).toEqual(records.map((r) => partitionForKey(r.key, 4)));
    const a = broker.topics.requireTopic('plain').partitions;
    const b = broker.topics.requireTopic('viaRecords').partitions;
    for (let p = 0; p < 4; p++) expect(stored(a[p]!)).toEqual(stored(b[p]!));
  });

  it('appends to a commit-log topic through its RecordToStore fallback', async () => {
    const broker = await env.start();
    await broker.topics.createTopic('counted', 2, { config: { backend: 'commitlog' } });
    const c = await env.raw();
    const records = batch(2, 50);
    const ack = c.decode(
      ProduceBatchAckReply,
      await c.request(ProduceBatchRequest, { flags: 0, codec: 0, topic: 'counted', records }),
    );
    expect(ack.errorCode).toBe(ErrorCode.NONE);
    const logs = broker.topics.requireTopic('counted').partitions;
    expect(logs[0]!.backend).toBe('commitlog');
    for (let p = 1; p <= 2; p++) {
      const mine = records.filter((r) => partitionForKey(r.key, 2) === p);
      const read = stored(logs[p - 1]!);
      expect(read.map((r) => r.key)).toEqual(mine.map((r) => r.key.toString('hex')));
      expect(read.map((r) => r.value)).toEqual(mine.map((r) => r.value.toString('hex')));
      expect(ack.acks.filter((x) => x.partition === p).map((x) => x.offset)).toEqual(read.map((r) => r.offset));
    }
  });

  it('a partial append across partitions: the prefix and bytes, and every log durable at the reply', async () => {
    const faults: SegmentedLogFaults = {};
    const broker = await env.start({
      logFactory: storageLogFactory(resolveConfig({ dataDir: env.dataDir }), { faults }),
    });
    await broker.topics.createTopic('plain', 4);
    await broker.topics.createTopic('viaRecords', 4);
    const c = await env.raw();
    const records = batch(3, 60);
    const send = async (topic: string, flags: number) =>
      c.decode(ProduceBatchAckReply, await c.request(ProduceBatchRequest, { flags, codec: 0, topic, records }));
    // Every append call writes its first 5 records: the first touched partition fails first, later ones are cut
    // back to the list-order prefix (the early sync of each partition is then superseded by one after the cut).
    faults.failAfterRecords = 5;
    const fast = await send('plain', 0);
    const a = broker.topics.requireTopic('plain').partitions;
    const durableAtReply = a.map((log) => [log.durableEndOffset, log.logEndOffset]);
    const slow = await send('viaRecords', BatchFlag.HEADERS);
    expect(fast).toEqual(slow);
    expect(fast.errorCode).toBe(ErrorCode.INTERNAL);
    expect(fast.acks.length).toBeGreaterThan(4);
    expect(fast.acks.length).toBeLessThan(records.length);
    const b = broker.topics.requireTopic('viaRecords').partitions;
    for (let p = 0; p < 4; p++) expect(stored(a[p]!)).toEqual(stored(b[p]!));
    for (const [durable, end] of durableAtReply) expect(durable).toBe(end);
    faults.failAfterRecords = undefined;
    const whole = await send('plain', 0);
    expect(whole.errorCode).toBe(ErrorCode.NONE);
    for (const log of a) expect(log.durableEndOffset).toBe(log.logEndOffset);
  });
});
