/**
 * The fault test of issue 6: a broker in a child process (`crater broker start`, from the build) is SIGKILLed in
 * the middle of durable idempotent batch traffic, restarted on the same data dir, and the producer retries what
 * was in flight on a resumed session. Afterwards the storage readers (the read-only inspector) must find every
 * acknowledged record exactly once, no record twice, and every ack pointing at the record it acknowledged.
 * Repeated at several kill points; the kills land wherever the broker happens to be (before the append, between
 * append and fsync, between fsync and reply).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { IdempotentSink } from '../../src/client/idempotent-sink.js';
import { Producer } from '../../src/client/producer.js';
import { openSession } from '../../src/client/session.js';
import { inspectPaths } from '../../src/storage/inspect/inspect.js';
import { type ChildBroker, killChildBroker, startChildBroker } from '../helpers/child-broker.js';

const BATCHES = 36;
const PER_BATCH = 25;

let dataDir: string | undefined;
let current: ChildBroker | undefined;

afterEach(async () => {
  if (current) await killChildBroker(current);
  current = undefined;
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});



const startChild = (dir: string): Promise<ChildBroker> => startChildBroker(dir, { topics: ['orders:3'] });

const valueOf = (batch: number, i: number) => `b${batch}-r${i}`;

describe('SIGKILL during durable idempotent batch traffic', () => {
  it('loses no acknowledged record and duplicates none across several kills and restarts', async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-fault-'));
    current = await startChild(dataDir);
    const sink = new IdempotentSink(undefined, {
      producerName: 'fault',
      reconnect: () => openSession({ broker: current!.address, timeoutMs: 5_000 }),
      reconnectAttempts: 60,
    });
    const producer = new Producer(sink);
    const acked = new Map<string, { partition: number; offset: bigint }>();
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
          const victim = current!;
          await new Promise((r) => setTimeout(r, delay));
          await killChildBroker(victim);
          kills++;
          current = await startChild(dataDir);
        }
        const { acks, error } = await sending;
        expect(error).toBeUndefined();
        expect(acks).toHaveLength(PER_BATCH);
        acks.forEach((ack, i) => acked.set(valueOf(b, i), ack));
      }
      expect(sink.producerIdentity?.epoch).toBe(0);
    } finally {
      await producer.close();
    }
    expect(kills).toBe(killPoints.size);
    current!.child.kill('SIGTERM');
    await current!.exited;
    current = undefined;

    const report = inspectPaths([path.join(dataDir, 'orders')], { level: 'payload' });
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
    const duplicated = [...stored].filter(([, where]) => where.length > 1).map(([v]) => v);
    expect(duplicated).toEqual([]);
    expect(acked.size).toBe(BATCHES * PER_BATCH);
    const missing = [...acked.keys()].filter((v) => !stored.has(v));
    expect(missing).toEqual([]);
    for (const [value, ack] of acked) expect(stored.get(value)).toEqual([ack]);
    expect(stored.size).toBe(acked.size);
  }, 30_000);
});
