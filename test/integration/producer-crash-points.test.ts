/**
 * Deterministic kills inside a durable idempotent produce: a broker in a child process (from the build) started
 * with CRATER_TEST_CRASH_AT SIGKILLs itself right after the memo append (after-memo-before-data) or after the first
 * partition's data append (mid-batch-data), so the memo names records that are missing or partly missing. The
 * broker restarts on the same data dir (without the hook), the producer resumes its session and resends; every
 * record must then be stored exactly once, at the offset its ack names.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { IdempotentSink } from '../../src/client/idempotent-sink.js';
import { Producer } from '../../src/client/producer.js';
import { openSession } from '../../src/client/session.js';
import { inspectPaths } from '../../src/storage/inspect/inspect.js';
import { dumpProducerState } from '../../src/storage/producer-state/dump.js';
import { type ChildBroker, killChildBroker, startChildBroker } from '../helpers/child-broker.js';

let dataDir: string | undefined;
let current: ChildBroker | undefined;

afterEach(async () => {
  if (current) await killChildBroker(current);
  current = undefined;
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

const PER_BATCH = 12;
const valueOf = (batch: number, i: number) => `b${batch}-r${i}`;
const batchOf = (b: number) => Array.from({ length: PER_BATCH }, (_, i) => ({ key: `key-${i % 7}`, value: valueOf(b, i) }));

/** value → where it is stored, read with the read-only inspector. */
function storedRecords(dir: string): Map<string, { partition: number; offset: bigint }[]> {
  const report = inspectPaths([path.join(dir, 'orders')], { level: 'payload' });
  expect(report.findings).toEqual([]);
  const stored = new Map<string, { partition: number; offset: bigint }[]>();
  for (const p of report.partitions) {
    for (const s of p.segments) {
      for (const r of s.records ?? []) {
        const value = r.payload!.value!.toString();
        stored.set(value, [...(stored.get(value) ?? []), { partition: p.partition!, offset: r.offset }]);
      }
    }
  }
  return stored;
}

describe.each(['after-memo-before-data', 'mid-batch-data'])('SIGKILL at %s', (crashAt) => {
  it('the resumed producer resends the batch, which lands exactly once where its acks say', async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-crash-point-'));
    current = await startChildBroker(dataDir, { topics: ['orders:3'], crashAt });
    const victim = current;
    const sink = new IdempotentSink(undefined, {
      producerName: 'crashy',
      reconnect: () => openSession({ broker: current!.address, timeoutMs: 5_000 }),
      reconnectAttempts: 60,
    });
    const producer = new Producer(sink);
    const acked = new Map<string, { partition: number; offset: bigint }>();
    try {
      const sending = producer.sendBatch('orders', batchOf(0));
      expect(await victim.exited).toBe('SIGKILL');
      // The broker died inside the write: the memo is there, the batch's data is not (or only one partition's).
      const left = storedRecords(dataDir);
      if (crashAt === 'after-memo-before-data') expect(left.size).toBe(0);
      else expect(left.size).toBeGreaterThan(0);
      expect(left.size).toBeLessThan(PER_BATCH);
      current = await startChildBroker(dataDir, { topics: ['orders:3'] });
      for (let b = 0; b < 3; b++) {
        const { acks, error } = await (b === 0 ? sending : producer.sendBatch('orders', batchOf(b)));
        expect(error).toBeUndefined();
        expect(acks).toHaveLength(PER_BATCH);
        acks.forEach((ack, i) => acked.set(valueOf(b, i), ack));
      }
      expect(sink.producerIdentity?.epoch).toBe(0);
    } finally {
      await producer.close();
    }
    current.child.kill('SIGTERM');
    await current.exited;
    current = undefined;

    const stored = storedRecords(dataDir);
    expect([...stored].filter(([, where]) => where.length > 1)).toEqual([]);
    expect(stored.size).toBe(3 * PER_BATCH);
    for (const [value, ack] of acked) expect(stored.get(value)).toEqual([ack]);
    // The start-up repair's "no ack" memo was replaced by the resent batch's memo; the acks all point at records.
    const state = dumpProducerState([dataDir], { against: dataDir });
    expect(state.findings).toEqual([]);
    expect(state.entries.find((e) => e.kind === 'memo')?.memo).toMatchObject({ version: 3, baseSeq: 2 * PER_BATCH });
  }, 30_000);
});
