/**
 * The fault test of issue 6: a broker in a child process (`crater broker start`, from the build) is SIGKILLed in
 * the middle of durable idempotent batch traffic, restarted on the same data dir, and the producer retries what
 * was in flight on a resumed session. Afterwards the storage readers (the read-only inspector) must find every
 * acknowledged record exactly once, no record twice, and every ack pointing at the record it acknowledged.
 * Repeated at several kill points; the kills land wherever the broker happens to be (before the append, between
 * append and fsync, between fsync and reply).
 */
import { describe, expect, it } from 'vitest';
import { killChildBroker } from '../helpers/child-broker.js';
import { expectExactlyOnce, noteAcks, type StoredAt, storedRecords, useCrashRun } from '../helpers/crash-run.js';

const BATCHES = 36;
const PER_BATCH = 25;

const run = useCrashRun('crater-fault-');
const startChild = () => run.start({ topics: ['orders:3'] });

const valueOf = (batch: number, i: number) => `b${batch}-r${i}`;

describe('SIGKILL during durable idempotent batch traffic', () => {
  it('loses no acknowledged record and duplicates none across several kills and restarts', async () => {
    await startChild();
    const { producer, sink } = run.producer('fault');
    const acked = new Map<string, StoredAt>();
    // After how many acknowledged batches to kill, and how long to let the next batch run first (ms).
    const killPoints = new Map([
      [4, 0],
      [12, 1],
      [20, 3],
      [28, 0],
    ]);
    let kills = 0;
    try {
      for (let b = 0; b < BATCHES; b++) {
        const records = Array.from({ length: PER_BATCH }, (_, i) => ({ key: `key-${i % 7}`, value: valueOf(b, i) }));
        const sending = producer.sendBatch('orders', records);
        const delay = killPoints.get(b);
        if (delay !== undefined) {
          const victim = run.current;
          await new Promise((r) => setTimeout(r, delay));
          await killChildBroker(victim);
          kills++;
          await startChild();
        }
        noteAcks(acked, await sending, PER_BATCH, (i) => valueOf(b, i));
      }
      expect(sink.producerIdentity?.epoch).toBe(0);
    } finally {
      await producer.close();
    }
    expect(kills).toBe(killPoints.size);
    await run.stop();

    expectExactlyOnce(storedRecords(run.dataDir), acked, BATCHES * PER_BATCH);
  }, 30_000);
});
