import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RetentionCleaner } from '../../src/broker/cleaner.js';
import { silentLogger } from '../../src/broker/core.js';
import type { TopicRegistry } from '../../src/broker/topics.js';
import { ProduceBatchAckReply, ProduceBatchRequest } from '../../src/protocol/messages/produce-batch.js';
import { FetchFlag } from '../../src/protocol/opcodes.js';
import { SegmentedLog } from '../../src/storage/segmented-log.js';
import { eventually, fetchFrames, recordsIn, values } from '../helpers/consumer-harness.js';
import { fastRetention, useTempBroker } from '../helpers/temp-broker.js';

const HOUR = 3_600_000;
let fakeNow = Date.now();
const env = useTempBroker();

async function start() {
  fakeNow = Date.now();
  const b = await env.start({ topics: [{ name: 'events', partitions: 1 }], ...fastRetention(() => BigInt(fakeNow)) });
  return { b, c: await env.raw() };
}

const records = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({
    key: Buffer.from(`${prefix}${i}`),
    value: Buffer.alloc(200, `${prefix}${i}`),
  }));

async function segmentFiles(dir: string): Promise<string[]> {
  return (await fs.readdir(dir)).filter((f) => f.endsWith('.log')).sort();
}

describe('retention cleaner (storage.md §8.1)', () => {
  it('deletes old segments once the interval passes; the LEO stays, and a group behind the log start resumes at it', async () => {
    const { b, c } = await start();
    const ack = c.decode(
      ProduceBatchAckReply,
      await c.request(ProduceBatchRequest, { flags: 0, codec: 0, topic: 'events', records: records(30, 'r') }),
    );
    expect(ack.acks).toHaveLength(30);
    const log = b.topics.requireTopic('events').partitions[0] as SegmentedLog;
    const segmentsBefore = log.segmentCount;
    expect(segmentsBefore).toBeGreaterThan(3);
    const leo = log.logEndOffset;
    // The group commits a position near the start, which retention is about to delete.
    expect(values(recordsIn(await fetchFrames(c, 'events', 'g', 2, { flags: FetchFlag.BATCHED })))).toHaveLength(2);

    // Ticks keep running, but neither the interval nor the retention has elapsed on the broker's clock: two whole
    // passes from now on clean nothing.
    const passes: number[] = [];
    const off = b.on((e) => e.type === 'retention-pass' && passes.push(e.deletedSegments));
    await eventually(() => passes.length >= 2);
    off();
    expect(passes.slice(0, 2)).toEqual([0, 0]);
    expect(log.segmentCount).toBe(segmentsBefore);
    expect(log.logStartOffset).toBe(0n);

    fakeNow += 2 * HOUR;
    await eventually(() => log.logStartOffset > 0n);
    expect(log.segmentCount).toBe(1);
    expect(log.logEndOffset).toBe(leo);
    expect(await segmentFiles(log.dir)).toHaveLength(1);
    expect(log.logStartOffset).toBe(log.segmentBases()[0]);

    const resumed = recordsIn(await fetchFrames(c, 'events', 'g', 100, { flags: FetchFlag.BATCHED }));
    expect(resumed[0]!.offset).toBe(log.logStartOffset);
    expect(resumed.at(-1)!.offset).toBe(ack.acks.at(-1)!.offset);
  });

  it('never cleans an internal __* topic, even one on the segmented backend', async () => {
    const open = (name: string) =>
      SegmentedLog.openSync(path.join(env.dataDir, name), { create: true, maxSegmentSize: 1_024, now: () => 0 });
    const internal = open('__audit');
    const user = open('events');
    for (const log of [internal, user])
      log.append(records(30, 'x').map((r) => ({ attrs: 0, timestamp: 1n, key: r.key, value: r.value })));
    const segments = internal.segmentCount;
    expect(segments).toBeGreaterThan(3);
    const topics = [
      { name: '__audit', internal: true, partitions: [internal], config: {} },
      { name: 'events', internal: false, partitions: [user], config: { retention: '60', cleaner_interval: '1' } },
    ];
    let now = 0;
    const cleaner = new RetentionCleaner({ all: () => topics.values() } as unknown as TopicRegistry, {
      tickMs: 1_000,
      now: () => now,
      logger: silentLogger,
    });
    cleaner.start();
    try {
      now = 2 * HOUR;
      const pass = await cleaner.tick();
      expect(pass.topics).toBe(1);
      expect(pass.deletedSegments).toBe(segments - 1);
      expect(user.segmentCount).toBe(1);
      expect(internal.segmentCount).toBe(segments);
      expect(internal.logStartOffset).toBe(0n);
      expect(await segmentFiles(internal.dir)).toHaveLength(segments);
      // Within the next interval nothing runs again.
      now += 500;
      expect((await cleaner.tick()).topics).toBe(0);
    } finally {
      await cleaner.stop();
      await internal.close();
      await user.close();
    }
  });
});
