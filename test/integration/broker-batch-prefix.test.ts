import { describe, expect, it } from 'vitest';
import type { Broker } from '../../src/broker/broker.js';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { partitionForKey } from '../../src/protocol/fnv1a.js';
import { ProduceBatchAckReply, ProduceBatchRequest } from '../../src/protocol/messages/produce-batch.js';
import type { SegmentedLog } from '../../src/storage/segmented-log.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker({ topics: [{ name: 'orders', partitions: 4 }] });

const records = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`) }));

/** Every stored key per partition (1-based index 0 = partition 1). */
function storedKeys(b: Broker): string[][] {
  return b.topics
    .requireTopic('orders')
    .partitions.map((log) => log.read(0n, { maxRecords: 1_000 }).map((r) => r.key.toString()));
}

describe('PRODUCE_BATCH prefix across partitions', () => {
  it('a failure in one partition acks a list-order prefix and leaves exactly that prefix on disk after a restart', async () => {
    const broker = await env.start();
    const c = await env.raw();
    const batch = records(40);
    const assigned = batch.map((r) => partitionForKey(r.key, 4));
    const order = [...new Set(assigned)];
    expect(order).toHaveLength(4);
    // The second partition appended fails after 2 of its records, so the first one has records past the failure.
    const failing = order[1]!;
    const failingIndexes = assigned.flatMap((p, i) => (p === failing ? [i] : []));
    const failAt = failingIndexes[2]!;
    const earlier = assigned.flatMap((p, i) => (p === order[0] ? [i] : []));
    expect(earlier.some((i) => i > failAt)).toBe(true);
    (broker.topics.requireTopic('orders').partitions[failing - 1] as SegmentedLog).faults = { failAfterRecords: 2 };

    const reply = c.decode(
      ProduceBatchAckReply,
      await c.request(ProduceBatchRequest, { flags: 0, codec: 0, topic: 'orders', records: batch }),
    );
    expect(reply.errorCode).toBe(ErrorCode.INTERNAL);
    expect(reply.acks).toHaveLength(failAt);
    expect(reply.acks.map((a) => a.partition)).toEqual(assigned.slice(0, failAt));

    const restarted = await env.restart();
    const expected = [1, 2, 3, 4].map((p) =>
      batch.flatMap((r, i) => (i < failAt && assigned[i] === p ? [r.key.toString()] : [])),
    );
    expect(storedKeys(restarted)).toEqual(expected);
    for (const ack of reply.acks) {
      const [rec] = restarted.topics
        .requireTopic('orders')
        .partitions[ack.partition - 1]!.read(ack.offset, { maxRecords: 1 });
      expect(rec!.offset).toBe(ack.offset);
    }
  });

  it('the resent tail lands after the prefix with no duplicates, and the taken-back space is reused', async () => {
    const broker = await env.start();
    const c = await env.raw();
    const batch = records(40);
    const assigned = batch.map((r) => partitionForKey(r.key, 4));
    const order = [...new Set(assigned)];
    const log = broker.topics.requireTopic('orders').partitions[order[1]! - 1] as SegmentedLog;
    log.faults = { failAfterRecords: 1 };
    const first = c.decode(
      ProduceBatchAckReply,
      await c.request(ProduceBatchRequest, { flags: 0, codec: 0, topic: 'orders', records: batch }),
    );
    log.faults = undefined;
    const tail = batch.slice(first.acks.length);
    const second = c.decode(
      ProduceBatchAckReply,
      await c.request(ProduceBatchRequest, { flags: 0, codec: 0, topic: 'orders', records: tail }),
    );
    expect(second.errorCode).toBe(ErrorCode.NONE);
    expect(first.acks.length + second.acks.length).toBe(40);
    const keys = storedKeys(broker);
    expect(keys.flat().sort()).toEqual(batch.map((r) => r.key.toString()).sort());
    expect(keys).toEqual(
      [1, 2, 3, 4].map((p) => batch.flatMap((r, i) => (assigned[i] === p ? [r.key.toString()] : []))),
    );
  });
});
