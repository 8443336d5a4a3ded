/**
 * The two floors a record produced one at a time cannot go below, measured beside the modes they bound:
 *
 *   rtt    one loopback TCP round trip: a 1-byte message to an echo server on 127.0.0.1 and back, awaited, Nagle off.
 *          The server runs in a child process (echo-child.ts), as the bench broker does, so a round trip wakes two
 *          processes, as a PRODUCE does. (Until session 8 it ran in this process: client and server then shared one
 *          event loop, the echo was served in the same epoll round that sent it, and the floor left out the
 *          cross-process wake-ups every request pays: 0.017-0.020 ms p50 in-process against 0.024-0.040 across.)
 *   fsync  one fsync of a file just appended to (a record-sized write), in the directory the broker stores into
 *          (its data dir when embedded), so it is the broker's file system's flush.
 *
 * `perRecordMs` is rtt p50 + fsync p50: what an awaited, durable, one-record produce costs at the least.
 *
 * With a batch layout, a third floor: `files` fsyncs at once, each of a file just appended `bytesPerFile` to (one
 * partition's share of the batch), as a PRODUCE_BATCH over that many partitions waits for them. `batchMs` is rtt p50
 * + that p50: what one awaited batch costs at the least. On this VM's ext4 an fsync's cost grows with the bytes it
 * writes out (one record 0.1-0.4 ms, 14 KB about 1 ms), so a batch's floor is well above a lone record's fsync.
 */
import { fork } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Percentiles, percentiles } from './stats.js';

export interface Floors {
  rttMs: Percentiles;
  fsyncMs: Percentiles;
  /** rttMs.p50 + fsyncMs.p50. */
  perRecordMs: number;
  /** With a batch layout: its parallel fsyncs (`files` of them, `bytesPerFile` each), and rttMs.p50 + their p50. */
  batch?: { files: number; bytesPerFile: number; fsyncMs: Percentiles; ms: number };
}

/** A batch's shape on disk: the partitions it touches and the bytes it appends to each. */
export interface BatchLayout {
  files: number;
  bytesPerFile: number;
}

export async function measureFloors(
  dir: string | undefined,
  samples: number,
  recordBytes: number,
  batch?: BatchLayout,
): Promise<Floors> {
  const rttMs = await measureRtt(samples);
  const fsyncMs = await measureFsync(dir ?? os.tmpdir(), samples, { files: 1, bytesPerFile: recordBytes });
  const floors: Floors = { rttMs, fsyncMs, perRecordMs: rttMs.p50 + fsyncMs.p50 };
  if (batch) {
    const batchFsync = await measureFsync(dir ?? os.tmpdir(), Math.ceil(samples / 4), batch);
    floors.batch = { ...batch, fsyncMs: batchFsync, ms: rttMs.p50 + batchFsync.p50 };
  }
  return floors;
}

/** The compiled echo child (under vitest this module runs from src/, so it points at the build, as the broker child does). */
function echoChildPath(): string {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.js')) return path.join(path.dirname(here), 'echo-child.js');
  return path.resolve(path.dirname(here), '../../dist/bench/echo-child.js');
}

/** The round-trip floor's peer: its process, the port it echoes on, and how to stop it (resolves once it exited). */
export interface EchoPeer {
  pid: number;
  port: number;
  stop(): Promise<void>;
}

/** Forks the echo child (no inherited node flags: a profiled bench must not profile it) and waits for its port. */
export async function startEchoPeer(): Promise<EchoPeer> {
  const child = fork(echoChildPath(), [], { execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.connected) child.disconnect();
    await exited;
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.once('message', (m: { port: number }) => resolve(m.port));
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`the echo child exited (${code}) before listening`)));
    });
    return { pid: child.pid!, port, stop };
  } catch (err) {
    child.kill();
    throw err;
  }
}

async function measureRtt(samples: number): Promise<Percentiles> {
  const echo = await startEchoPeer();
  const socket = net.connect(echo.port, '127.0.0.1');
  socket.setNoDelay(true);
  try {
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const one = Buffer.from([1]);
    const roundTrip = (): Promise<void> =>
      new Promise((resolve) => {
        socket.once('data', () => resolve());
        socket.write(one);
      });
    for (let i = 0; i < Math.min(50, samples); i++) await roundTrip();
    const times: number[] = [];
    for (let i = 0; i < samples; i++) {
      const t0 = performance.now();
      await roundTrip();
      times.push(performance.now() - t0);
    }
    return percentiles(times);
  } finally {
    socket.destroy();
    await echo.stop();
  }
}

/** Appends `bytesPerFile` to each of `files` files, then times their fsyncs run at once (one sample per round). */
async function measureFsync(dir: string, samples: number, layout: BatchLayout): Promise<Percentiles> {
  const folder = await fs.mkdtemp(path.join(dir, 'fsync-floor-'));
  const handles: fs.FileHandle[] = [];
  try {
    for (let f = 0; f < layout.files; f++) handles.push(await fs.open(path.join(folder, `probe-${f}`), 'w'));
    const buf = Buffer.alloc(Math.max(1, layout.bytesPerFile), 0x5a);
    let pos = 0;
    const times: number[] = [];
    for (let i = 0; i < samples + 10; i++) {
      await Promise.all(handles.map((fh) => fh.write(buf, 0, buf.length, pos)));
      pos += buf.length;
      const t0 = performance.now();
      await Promise.all(handles.map((fh) => fh.sync()));
      if (i >= 10) times.push(performance.now() - t0);
    }
    return percentiles(times);
  } finally {
    await Promise.all(handles.map((fh) => fh.close()));
    await fs.rm(folder, { recursive: true, force: true });
  }
}

/** A figure that should stay at or below `target`. */
export interface CeilingTarget {
  target: number;
  measured: number;
  met: boolean;
}

export const BatchVsSingleTargets = { batchMedianMs: 1, floorRatio: 1.3, p99OverFsyncP99: 3 } as const;

function ceiling(target: number, measured: number): CeilingTarget {
  return { target, measured, met: measured <= target };
}

/** The ratios to the floors and the targets judged on them. */
export function overFloors(singlePerRecordMs: number, singleP99Ms: number, batchMedianMs: number, floors: Floors) {
  const singleOverFloor = singlePerRecordMs / floors.perRecordMs;
  const p99OverFsyncP99 = singleP99Ms / floors.fsyncMs.p99;
  const t = BatchVsSingleTargets;
  return {
    singleOverFloor,
    p99OverFsyncP99,
    batchOverFloor: floors.batch ? batchMedianMs / floors.batch.ms : null,
    targets: {
      batchMedianMs: ceiling(t.batchMedianMs, batchMedianMs),
      floorRatio: ceiling(t.floorRatio, singleOverFloor),
      p99OverFsyncP99: ceiling(t.p99OverFsyncP99, p99OverFsyncP99),
    },
  };
}
