import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OffsetStore } from '../../../../src/broker/consumer/offset-store.js';
import { silentLogger } from '../../../../src/broker/core.js';
import { CommitLog } from '../../../../src/storage/commit-log.js';
import { encodeOffsetKey, offsetsPartition } from '../../../../src/storage/offsets-codec.js';
import { eventually } from '../../../helpers/eventually.js';

let dir: string;
let logs: CommitLog[] = [];

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crater-offsets-'));
});
afterEach(async () => {
  await closeLogs();
  await fs.rm(dir, { recursive: true, force: true });
});

async function closeLogs(): Promise<void> {
  await Promise.all(logs.map((l) => l.close()));
  logs = [];
}

function open(): Promise<OffsetStore> {
  return OffsetStore.open(
    async (p) => {
      const log = CommitLog.open(path.join(dir, `partition-${p}`), {
        cleanupPolicy: 'compact',
        segmentBytes: 8 * 1_048_576,
      });
      logs.push(log);
      return log;
    },
    () => 1n,
    silentLogger,
  );
}

describe('OffsetStore', () => {
  it('writes every commit of a group to fnv1a(group) mod 16 + 1 with the §7 key and an 8-byte value', async () => {
    const store = await open();
    await store.commit('billing', [{ topic: 'orders', partition: 1, offset: 42n }]);
    const p = offsetsPartition('billing');
    expect(p).toBe(13);
    const [rec] = logs[p - 1]!.read(0n, { maxRecords: 10 });
    expect(rec!.key.toString('hex')).toBe('000762696c6c696e6700066f726465727300000001');
    expect(rec!.key).toEqual(encodeOffsetKey({ group: 'billing', topic: 'orders', partition: 1 }));
    expect(rec!.value.toString('hex')).toBe('000000000000002a');
    expect(logs[p - 1]!.fsyncCount).toBeGreaterThanOrEqual(1);
  });

  it('replays on open: the last commit wins and tombstones delete', async () => {
    let store = await open();
    await store.commit('g', [
      { topic: 'orders', partition: 1, offset: 1n },
      { topic: 'orders', partition: 2, offset: 2n },
    ]);
    await store.commit('g', [{ topic: 'orders', partition: 1, offset: 5n }]);
    await store.commit('h', [{ topic: 'orders', partition: 1, offset: 9n }]);
    await store.commit('h', [{ topic: 'audit', partition: 1, offset: 3n }]);
    await store.deleteTopic('orders');
    await store.commit('gone', [{ topic: 'audit', partition: 1, offset: 1n }]);
    await store.deleteGroup('gone');
    await closeLogs();
    store = await open();
    expect(store.offsetsOf('g')).toEqual([]);
    expect(store.hasGroup('g')).toBe(false);
    expect(store.offsetsOf('h')).toEqual([{ topic: 'audit', partition: 1, offset: 3n }]);
    expect(store.hasGroup('gone')).toBe(false);
    expect(store.groupIds()).toEqual(['h']);
  });

  it('coalesces syncs: many commits in a burst share a couple of fsyncs, and all are durable after', async () => {
    const store = await open();
    const log = logs[offsetsPartition('g') - 1]!;
    const before = log.fsyncCount;
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.commit('g', [{ topic: 't', partition: 1, offset: BigInt(i) }])),
    );
    expect(store.commitCount).toBe(50);
    expect(log.fsyncCount - before).toBeLessThanOrEqual(2);
    expect(store.get('g', 't', 1)).toBe(49n);
  });

  it('delivery commits apply at once and are written coalesced: one record per key per flush, the latest value', async () => {
    let store = await open();
    const log = logs[offsetsPartition('g') - 1]!;
    const fsyncs = log.fsyncCount;
    for (let i = 1; i <= 20; i++) {
      store.deliver('g', 't', 1, BigInt(i));
      store.deliver('g', 't', 2, BigInt(100 + i));
    }
    expect(store.get('g', 't', 1)).toBe(20n);
    expect(store.commitCount).toBe(0);
    expect(store.deliveriesPending).toBe(true);
    await store.flushDelivered();
    expect(store.deliveriesPending).toBe(false);
    expect(store.commitCount).toBe(2);
    expect(log.fsyncCount - fsyncs).toBe(1);
    await store.flushDelivered();
    expect(store.commitCount).toBe(2);
    store.deliver('g', 't', 1, 21n);
    await closeLogsAfterFlush(store);
    store = await open();
    expect(store.offsetsOf('g')).toEqual([
      { topic: 't', partition: 1, offset: 21n },
      { topic: 't', partition: 2, offset: 120n },
    ]);
  });

  it('a delivery flush after a COMMIT or a delete writes what memory holds: never an older value, no resurrection', async () => {
    let store = await open();
    store.deliver('g', 't', 1, 50n);
    await store.commit('g', [{ topic: 't', partition: 1, offset: 7n }]);
    store.deliver('gone', 't', 1, 9n);
    await store.deleteGroup('gone');
    store.deliver('h', 'x', 1, 3n);
    await store.deleteTopic('x');
    await store.flushDelivered();
    expect(store.get('g', 't', 1)).toBe(7n);
    await closeLogs();
    store = await open();
    expect(store.get('g', 't', 1)).toBe(7n);
    expect(store.hasGroup('gone')).toBe(false);
    expect(store.hasGroup('h')).toBe(false);
  });

  it('a delivery flush that cannot append rejects (the offset stays committed in memory) and stop still returns', async () => {
    const store = await open();
    await closeLogs();
    store.deliver('g', 't', 1, 8n);
    await expect(store.flushDelivered()).rejects.toThrow();
    expect(store.get('g', 't', 1)).toBe(8n);
    expect(store.deliveriesPending).toBe(false);
    await store.flush();
  });

  it('an unwritten delivery is flushed by its timer without anyone waiting', async () => {
    const store = await open();
    store.deliver('g', 't', 1, 4n);
    await eventually(() => !store.deliveriesPending);
    expect(store.commitCount).toBe(1);
  });
});

async function closeLogsAfterFlush(store: OffsetStore): Promise<void> {
  await store.flush();
  await closeLogs();
}
