/**
 * A broker crash between PREPARE_COMMIT and the COMMIT markers (semantics.md §10 crash recovery). The broker runs
 * in a child process (the built broker, through the test-only entry test/helpers/fault-broker.mjs) whose fault hook
 * SIGKILLs it at after-prepare-commit, right after PREPARE_COMMIT is durable. A second
 * broker on the same data dir (without the hook) must roll the transaction forward: markers written, the buffered
 * offsets applied, the records visible to read_committed. The producer's END_TXN, resent on a resumed session,
 * is answered OK because the commit decision was already taken.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Client, connect } from '../../src/client/client.js';
import { RecordAttr, decodeControlValue } from '../../src/storage/record.js';
import { SegmentedLog } from '../../src/storage/segmented-log.js';
import { useCrashRun } from '../helpers/crash-run.js';

const run = useCrashRun('crater-txn-crash-');
const clients: Client[] = [];

// Registered after useCrashRun's hook, so (hooks running last-registered first) the clients close before the child is killed.
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});

const startChild = (crashAt?: string) => run.start({ topics: ['orders:2'], crashAt });

describe('crash after PREPARE_COMMIT', () => {
  it('rolls the transaction forward on restart and the resent END_TXN commit is answered OK', async () => {
    const crashing = await startChild('after-prepare-commit');
    const dir = run.dataDir;
    const { producer } = run.producer('crash');
    const records = Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: `v${i}` }));
    let signal: NodeJS.Signals | null = null;
    try {
      await producer.beginTransaction();
      const { acks, error } = await producer.sendBatch('orders', records);
      expect(error).toBeUndefined();
      expect(acks).toHaveLength(10);
      await producer.sendOffsetsToTransaction('billing', [{ topic: 'orders', partition: 1, offset: 42n }]);
      // The broker kills itself once PREPARE_COMMIT is durable; restart it (without the hook) as soon as it is gone.
      const restarted = crashing.exited.then(async (s) => {
        signal = s;
        await startChild();
      });
      await producer.commitTransaction();
      await restarted;
    } finally {
      await producer.close();
    }
    expect(signal).toBe('SIGKILL');

    const c = await connect({ broker: run.current.address, timeoutMs: 5_000 });
    clients.push(c);
    const { records: committed } = await c.fetch('orders', 'reader', { maxRecords: 100, isolation: 'read_committed' });
    expect(committed.map((r) => r.value.toString()).sort()).toEqual(records.map((r) => r.value).sort());
    const group = await c.describeGroup('billing');
    expect(group.offsets).toEqual([{ topic: 'orders', partition: 1, offset: 42n }]);
    for (const p of (await c.listOffsets('orders')).partitions) expect(p.lso).toBe(p.latest);

    // On disk: every partition the batch touched ends with exactly one COMMIT marker for the producer.
    await run.stop();
    const touched = new Set<number>();
    for (let p = 1; p <= 2; p++) {
      const log = await SegmentedLog.open(path.join(dir, 'orders', `partition-${p}`));
      try {
        const stored = log.read(0n, { maxRecords: 1_000 });
        const markers = stored.filter((r) => r.attrs & RecordAttr.CONTROL).map((r) => decodeControlValue(r.value));
        if (stored.some((r) => r.attrs & RecordAttr.TRANSACTIONAL)) {
          touched.add(p);
          expect(markers).toHaveLength(1);
          expect(markers[0]!.marker).toBe(1);
          expect(stored[stored.length - 1]!.attrs & RecordAttr.CONTROL).toBe(RecordAttr.CONTROL);
        }
      } finally {
        await log.close();
      }
    }
    expect(touched.size).toBeGreaterThan(0);
  });
});
