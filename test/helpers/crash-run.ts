/**
 * What the crash tests share: a temp data dir and the child broker currently running on it (killed, and the dir
 * removed, after each test), a durable idempotent producer whose sink reconnects to whichever child is current,
 * and the read-only inspector's view of the stored records, checked against the acks for exactly-once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect } from 'vitest';
import { IdempotentSink } from '../../src/client/moonmq/idempotent-sink.js';
import { Producer } from '../../src/client/producer/producer.js';
import { openSession } from '../../src/client/moonmq/session.js';
import { inspectPaths } from '../../src/storage/inspect/inspect.js';
import { type ChildBroker, type ChildBrokerOptions, killChildBroker, startChildBroker } from './child-broker.js';

export interface StoredAt {
  partition: number;
  offset: bigint;
}

export interface CrashRun {
  /** This test's data dir (made by the first `start`). */
  readonly dataDir: string;
  /** The child broker running now. */
  readonly current: ChildBroker;
  /** Starts a child on the data dir and makes it the current one. */
  start(options?: ChildBrokerOptions): Promise<ChildBroker>;
  /** SIGTERMs the current child and waits until it has exited. */
  stop(): Promise<void>;
  /** A producer named `producerName` over a sink that reconnects (up to 60 times) to the current child. */
  producer(producerName: string): { producer: Producer; sink: IdempotentSink };
}

export function useCrashRun(prefix: string): CrashRun {
  let dataDir: string | undefined;
  let current: ChildBroker | undefined;
  afterEach(async () => {
    if (current) await killChildBroker(current);
    current = undefined;
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    dataDir = undefined;
  });
  const run: CrashRun = {
    get dataDir() {
      if (!dataDir) throw new Error('no child broker started in this test');
      return dataDir;
    },
    get current() {
      if (!current) throw new Error('no child broker is running');
      return current;
    },
    async start(options = {}) {
      dataDir ??= fs.mkdtempSync(path.join(os.tmpdir(), prefix));
      current = await startChildBroker(dataDir, options);
      return current;
    },
    async stop() {
      const child = run.current;
      child.child.kill('SIGTERM');
      await child.exited;
      current = undefined;
    },
    producer(producerName) {
      const sink = new IdempotentSink(undefined, {
        producerName,
        reconnect: () => openSession({ broker: run.current.address, timeoutMs: 5_000 }),
        reconnectAttempts: 60,
      });
      return { producer: new Producer(sink), sink };
    },
  };
  return run;
}

/** value → every place it is stored under `<dir>/<topic>`, read with the read-only inspector (which must find nothing wrong). */
export function storedRecords(dir: string, topic = 'orders'): Map<string, StoredAt[]> {
  const report = inspectPaths([path.join(dir, topic)], { level: 'payload' });
  expect(report.findings).toEqual([]);
  const stored = new Map<string, StoredAt[]>();
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

/** Expects a batch's send to have landed whole, and notes where each record (named by `valueOf(i)`) was acked. */
export function noteAcks(
  acked: Map<string, StoredAt>,
  result: { acks: readonly StoredAt[]; error?: Error | undefined },
  count: number,
  valueOf: (i: number) => string,
): void {
  expect(result.error).toBeUndefined();
  expect(result.acks).toHaveLength(count);
  result.acks.forEach((ack, i) => acked.set(valueOf(i), ack));
}

/** Exactly once: `count` records acked, none stored twice or missing, each where its ack says, nothing else stored. */
export function expectExactlyOnce(
  stored: ReadonlyMap<string, StoredAt[]>,
  acked: ReadonlyMap<string, StoredAt>,
  count: number,
): void {
  const duplicated = [...stored].filter(([, where]) => where.length > 1).map(([v]) => v);
  expect(duplicated).toEqual([]);
  expect(acked.size).toBe(count);
  const missing = [...acked.keys()].filter((v) => !stored.has(v));
  expect(missing).toEqual([]);
  for (const [value, ack] of acked) expect(stored.get(value)).toEqual([ack]);
  expect(stored.size).toBe(acked.size);
}
