/**
 * The fault test of issue 6: a broker in a child process (`crater broker start`, from the build) is SIGKILLed in
 * the middle of durable idempotent batch traffic, restarted on the same data dir, and the producer retries what
 * was in flight on a resumed session. Afterwards the storage readers (the read-only inspector) must find every
 * acknowledged record exactly once, no record twice, and every ack pointing at the record it acknowledged.
 * Repeated at several kill points; the kills land wherever the broker happens to be (before the append, between
 * append and fsync, between fsync and reply).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { IdempotentSink } from '../../src/client/idempotent-sink.js';
import { Producer } from '../../src/client/producer.js';
import { openSession } from '../../src/client/session.js';
import { inspectPaths } from '../../src/storage/inspect/inspect.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BATCHES = 36;
const PER_BATCH = 25;

interface ChildBroker {
  child: ChildProcess;
  address: string;
  exited: Promise<void>;
}

let dataDir: string | undefined;
let current: ChildBroker | undefined;

afterEach(async () => {
  if (current) {
    current.child.kill('SIGKILL');
    await current.exited;
  }
  current = undefined;
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

/** Starts `crater broker start` on the data dir and waits (up to a deadline) for its CRATER_BROKER= line. */
function startChild(dir: string): Promise<ChildBroker> {
  const env: NodeJS.ProcessEnv = { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true' };
  const args = [path.join(root, 'bin/run.js'), 'broker', 'start', '--data-dir', dir, '--port', '0', '--topic', 'orders:3'];
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`broker did not start within 15 s: ${stderr}`)), 15_000);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /CRATER_BROKER=(\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, address: m[1]!, exited });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`broker exited with ${code} before listening: ${stderr}`));
    });
  });
}

async function kill(broker: ChildBroker): Promise<void> {
  broker.child.kill('SIGKILL');
  await broker.exited;
}

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
          await kill(victim);
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
