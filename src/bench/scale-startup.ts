/**
 * Broker start-up against data dirs of growing size. Per size: a one-partition topic is filled to that many MB
 * (1,000-byte values, written through the storage layer and closed cleanly), then the embedded broker starts on it
 * (a start after a clean shutdown), takes a tail of `tailRecords` acknowledged (fsynced) records, is killed with
 * SIGKILL and started again (a start after a crash). Each start reports the wall time from fork to listening, the
 * time Broker.start took, and the log bytes recovery read: after a clean shutdown that should be nothing, after the
 * kill about the tail, whatever the size of the log.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SegmentedLog } from '../storage/segmented-log.js';
import { UsageError } from '../errors.js';
import { EmbeddedBroker, type StartFigures } from './embedded-broker.js';
import { benchRecords } from './target.js';
import type { TargetOptions } from './target.js';

export interface StartupOptions {
  /** Data dir sizes in MB (10^6 bytes); default 10, 100, 1000. */
  sizesMb?: readonly number[];
  /** Records (1,000-byte values) produced between the clean start and the kill; default 1,000 (about 1 MB). */
  tailRecords?: number;
}

export interface StartupPoint {
  sizeMb: number;
  /** Bytes of log files in the data dir before the first start. */
  logBytes: number;
  clean: StartFigures;
  killed: StartFigures & { tailBytes: number };
}

export interface StartupCurve {
  partitions: 1;
  valueSize: number;
  points: StartupPoint[];
}

const TOPIC = 'bench-startup';
const VALUE_SIZE = 1000;
const FILL_BATCH = 1000;

/** Fills `<dataDir>/bench-startup/partition-1` to about `bytes` and closes it cleanly; returns the LEO. */
async function fill(dataDir: string, bytes: number): Promise<number> {
  const log = await SegmentedLog.open(path.join(dataDir, TOPIC, 'partition-1'), { create: true });
  try {
    const value = benchRecords({ count: 1, valueSize: VALUE_SIZE })[0]!.value as Buffer;
    const batch = Array.from({ length: FILL_BATCH }, (_, i) => ({
      attrs: 0,
      timestamp: BigInt(Date.now()),
      key: Buffer.from(`k${i.toString(36).padStart(7, '0')}`),
      value,
    }));
    while (Number(log.logEndOffset) < bytes) {
      const { error } = log.append(batch);
      if (error) throw error;
    }
    return Number(log.logEndOffset);
  } finally {
    await log.close();
  }
}

async function measureSize(
  sizeMb: number,
  tailRecords: number,
  target: TargetOptions,
  progress: (step: string) => void,
): Promise<StartupPoint> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'crater-bench-startup-'));
  try {
    progress(`start-up ${sizeMb} MB: filling the data dir`);
    const logBytes = await fill(dataDir, sizeMb * 1e6);
    progress(`start-up ${sizeMb} MB: start after a clean shutdown`);
    const broker = await EmbeddedBroker.start({ acks: target.acks ?? 'leader', dataDir });
    try {
      const clean = broker.started;
      const client = await connect(broker, target);
      try {
        const sent = await client.produceBatch(TOPIC, benchRecords({ count: tailRecords, valueSize: VALUE_SIZE }));
        if (sent.error) throw sent.error;
      } finally {
        await client.close();
      }
      progress(`start-up ${sizeMb} MB: SIGKILL, start after the crash`);
      await broker.killAndRestart();
      const tailBytes = (await logFileBytes(dataDir)) - logBytes;
      return { sizeMb, logBytes, clean, killed: { ...broker.started, tailBytes } };
    } finally {
      await broker.close();
    }
  } finally {
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

async function logFileBytes(dataDir: string): Promise<number> {
  const dir = path.join(dataDir, TOPIC, 'partition-1');
  let total = 0;
  for (const name of await fs.readdir(dir))
    if (name.endsWith('.log')) total += (await fs.stat(path.join(dir, name))).size;
  return total;
}

async function connect(broker: EmbeddedBroker, target: TargetOptions) {
  const { connect: connectClient } = await import('../client/client.js');
  return connectClient({
    broker: broker.address,
    username: target.username,
    password: target.password,
    timeoutMs: target.timeoutMs ?? 30_000,
  });
}

export async function runStartupCurve(
  options: StartupOptions,
  target: TargetOptions,
  progress: (step: string) => void,
): Promise<StartupCurve> {
  const sizes = options.sizesMb ?? [10, 100, 1000];
  const tail = options.tailRecords ?? 1000;
  for (const s of sizes)
    if (!(s > 0) || s > 100_000) throw new UsageError(`start-up size must be 1..100000 MB, got ${s}`);
  const points: StartupPoint[] = [];
  for (const sizeMb of sizes) points.push(await measureSize(sizeMb, tail, target, progress));
  return { partitions: 1, valueSize: VALUE_SIZE, points };
}
