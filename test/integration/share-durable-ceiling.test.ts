/**
 * Share groups read only what is durable (issue 11's rule, read-ceiling.ts): under acks=leader a record whose fsync
 * has not ended is not acquired by a share consumer, because a power loss could still erase it; once the fsync ends
 * it is. The fsync of the topic's partition is held by the file layer, so "not yet" is a fact of the test, not a race.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Broker } from '../../src/broker/broker.js';
import { connect } from '../../src/client/client.js';
import { installFileLayer } from '../../src/storage/file-io.js';
import { until } from '../helpers/eventually.js';
import { holdingLayer } from '../helpers/holding-fs.js';

let root: string | undefined;
afterEach(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
  root = undefined;
});

describe('share fetch and the durable read ceiling', () => {
  it('does not acquire a record before its fsync has ended, and acquires it after', async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-share-durable-'));
    const gate = holdingLayer(path.join(root, 'jobs', 'partition-1'));
    const restore = installFileLayer(gate);
    try {
      const broker = await Broker.start({
        acks: 'leader',
        topics: [{ name: 'jobs', partitions: 1 }],
        dataDir: root,
        port: 0,
      });
      const client = await connect({ broker: `127.0.0.1:${broker.address.port}` });
      try {
        await client.shareGroups.alter('workers', { 'auto.offset.reset': 'earliest' });
        const consumer = await client.shareConsumer({ group: 'workers', topics: ['jobs'], maxWaitMs: 0 });
        const log = broker.topics.requireTopic('jobs').partitions[0]!;
        const producer = await connect({ broker: client.address });
        const sending = producer.produce('jobs', { value: 'v0' });
        await until(() => (gate.holding() > 0 && log.logEndOffset > log.durableEndOffset ? true : undefined), {
          what: 'v0 appended with its fsync held',
        });
        expect(await consumer.poll(), 'acquired while its fsync is held').toEqual([]);
        gate.release();
        await sending;
        const got = await until(async () => {
          const records = await consumer.poll();
          return records.length > 0 ? records : undefined;
        });
        expect(got.map((r) => r.value.toString())).toEqual(['v0']);
        await consumer.close();
        await producer.close();
      } finally {
        await client.close();
        await broker.stop();
      }
    } finally {
      gate.release();
      restore();
    }
  });
});
