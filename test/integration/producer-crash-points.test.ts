/**
 * Deterministic kills inside a durable idempotent produce: a broker in a child process (from the build) started
 * with the fault hook (test/helpers/fault-broker.mjs) SIGKILLs itself right after the memo append (after-memo-before-data) or after the first
 * partition's data append (mid-batch-data), so the memo names records that are missing or partly missing. The
 * broker restarts on the same data dir (without the hook), the producer resumes its session and resends; every
 * record must then be stored exactly once, at the offset its ack names.
 */
import { describe, expect, it } from 'vitest';
import { dumpProducerState } from '../../src/storage/producer-state/dump.js';
import { expectExactlyOnce, noteAcks, type StoredAt, storedRecords, useCrashRun } from '../helpers/crash-run.js';

const run = useCrashRun('crater-crash-point-');

const PER_BATCH = 12;
const valueOf = (batch: number, i: number) => `b${batch}-r${i}`;
const batchOf = (b: number) =>
  Array.from({ length: PER_BATCH }, (_, i) => ({ key: `key-${i % 7}`, value: valueOf(b, i) }));

describe.each(['after-memo-before-data', 'mid-batch-data'])('SIGKILL at %s', (crashAt) => {
  it('the resumed producer resends the batch, which lands exactly once where its acks say', async () => {
    const victim = await run.start({ topics: ['orders:3'], crashAt });
    const { producer, sink } = run.producer('crashy');
    const acked = new Map<string, StoredAt>();
    try {
      const sending = producer.sendBatch('orders', batchOf(0));
      expect(await victim.exited).toBe('SIGKILL');
      // The broker died inside the write: the memo is there, the batch's data is not (or only one partition's).
      const left = storedRecords(run.dataDir);
      if (crashAt === 'after-memo-before-data') expect(left.size).toBe(0);
      else expect(left.size).toBeGreaterThan(0);
      expect(left.size).toBeLessThan(PER_BATCH);
      await run.start({ topics: ['orders:3'] });
      for (let b = 0; b < 3; b++) {
        noteAcks(acked, await (b === 0 ? sending : producer.sendBatch('orders', batchOf(b))), PER_BATCH, (i) =>
          valueOf(b, i),
        );
      }
      expect(sink.producerIdentity?.epoch).toBe(0);
    } finally {
      await producer.close();
    }
    await run.stop();

    expectExactlyOnce(storedRecords(run.dataDir), acked, 3 * PER_BATCH);
    // The start-up repair's "no ack" memo was replaced by the resent batch's memo; the acks all point at records.
    const state = dumpProducerState([run.dataDir], { against: run.dataDir });
    expect(state.findings).toEqual([]);
    expect(state.entries.find((e) => e.kind === 'memo')?.memo).toMatchObject({ version: 3, baseSeq: 2 * PER_BATCH });
  }, 30_000);
});
