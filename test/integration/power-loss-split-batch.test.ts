/**
 * A durable idempotent batch split over two partitions, whose first partition's fsync is held back while the second
 * partition's completes (test/integration/power-loss.test.ts found this only with more seeds). Recovery treats the
 * batch as one request: when the power goes out before every part of it is durable, start-up replay takes back the
 * parts that survived (verify-memos.ts), so none of it may be served before all of it is durable. The test takes a
 * power-loss image while the first partition's fsync is held, recovers it, and checks that every record a consumer
 * saw at that moment survived; then, with the fsync released, that the batch is acked and readable.
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
import { PowerLossFs } from '../helpers/power-loss-fs.js';
import { readAll } from '../helpers/power-loss-run.js';
import { prng } from '../helpers/prng.js';

const BROKER = { acks: 'leader' as const, topics: [{ name: 'orders', partitions: 2 }] };

let root: string | undefined;
afterEach(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
  root = undefined;
});

describe('power loss while a split idempotent batch is half durable', () => {
  it('serves none of the batch until all of it is durable, so what a consumer saw survives recovery', async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-split-batch-'));
    const dataDir = path.join(root, 'live');
    fs.mkdirSync(dataDir);
    const gate = holdingLayer(path.join(dataDir, 'orders', 'partition-1'));
    const layer = new PowerLossFs(dataDir, gate);
    const restore = installFileLayer(layer);
    const seen: string[] = [];
    const seenAtCrash: string[] = [];
    const values = ['b3.0', 'b3.1', 'b3.2'];
    try {
      const broker = await Broker.start({ ...BROKER, dataDir, port: 0 });
      const partition2 = broker.topics.requireTopic('orders').partitions[1]!;
      const client = await connect({ broker: `127.0.0.1:${broker.address.port}` });
      const consumer = await connect({ broker: client.address });
      const producer = client.producer({ producerName: 'app' });
      try {
        const before = partition2.durableEndOffset;
        const sending = producer.sendBatch(
          'orders',
          values.map((value) => ({ key: value, value })),
        );
        // Partition 2's part is fsynced while partition 1's fsync is held: the batch is half durable.
        await until(() => (partition2.durableEndOffset > before && gate.holding() > 0 ? true : undefined), {
          what: "partition 2's part durable while partition 1's fsync is held",
        });
        for (const r of (await consumer.fetch('orders', 'live', { maxRecords: 50 })).records)
          seen.push(r.value.toString());
        layer.image(path.join(root, 'crash'), 'drop', prng(1));
        seenAtCrash.push(...seen);
        gate.release();
        const { acks, error } = await sending;
        expect(error).toBeUndefined();
        expect(new Set(acks.map((a) => a.partition)), 'the batch spans both partitions').toEqual(new Set([1, 2]));
        const after = await until(async () => {
          const { records } = await consumer.fetch('orders', 'live', { maxRecords: 50 });
          for (const r of records) seen.push(r.value.toString());
          return seen.length >= values.length ? seen : undefined;
        });
        expect([...after].sort()).toEqual(values);
      } finally {
        await consumer.close();
        await producer.close();
        await client.close();
        await broker.stop();
      }
    } finally {
      gate.release();
      restore();
    }
    const recovered = await Broker.start({ ...BROKER, dataDir: path.join(root, 'crash'), port: 0 });
    try {
      const client = await connect({ broker: `127.0.0.1:${recovered.address.port}` });
      try {
        const stored = new Set((await readAll(client, 'orders', 'verify')).map((r) => r.value));
        expect(
          seenAtCrash.filter((v) => !stored.has(v)),
          'records a consumer saw before the power loss',
        ).toEqual([]);
        // Start-up replay took the half-durable batch back, partition 2's durable part too (verify-memos.ts) ...
        expect(values.filter((v) => stored.has(v))).toEqual([]);
        // ... so what keeps the records a consumer saw there is that none of the batch was served while part of it was not durable.
        expect(seenAtCrash.filter((v) => values.includes(v))).toEqual([]);
      } finally {
        await client.close();
      }
    } finally {
      await recovered.stop();
    }
  });
});
