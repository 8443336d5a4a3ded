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
 * A FloorSampler takes the samples in rounds, one before each timed repeat, so the floors cover the same stretch of
 * time as the modes. (Until session 8 all 400 fsyncs were taken in one burst of about 0.1 s before the modes, whose
 * 2,000 latencies span seconds: a p99 over a burst that missed the disk's slow second was set against a p99 that had
 * it, and the ratio swung from 1.1 to 12 between runs of the same build.)
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
import { recordSize } from '../storage/record.js';
import { compiledBenchFile } from './embedded-broker.js';
import { type Percentiles, percentiles } from './stats.js';
import { KEY_BYTES } from './target.js';

export interface Floors {
  rttMs: Percentiles;
  fsyncMs: Percentiles;
  /** rttMs.p50 + fsyncMs.p50 (issue 18's floor). */
  perRecordMs: number;
  /**
   * The mean round trip + the mean fsync: what N awaited durable produces take per record at the least, slow fsyncs
   * included. Single mode's wall time per record is a mean too, so against a disk with a heavy tail this is the floor
   * it can reach; `perRecordMs` (of p50s) sits below it by the tail's weight.
   */
  perRecordMeanMs: number;
  /** With a batch layout: its parallel fsyncs (`files` of them, `bytesPerFile` each), and rttMs.p50 + their p50. */
  batch?: { files: number; bytesPerFile: number; fsyncMs: Percentiles; ms: number };
}

/** A batch's shape on disk: the partitions it touches and the bytes it appends to each. */
export interface BatchLayout {
  files: number;
  bytesPerFile: number;
}

/**
 * Samples of each floor: as many as single mode's latencies (records × repeat), 400 to 4,000, so both p99s are read
 * off as many samples (this disk's slow fsyncs come in bursts; 400 can miss one that 2,000 latencies catch).
 */
const floorSamples = (records: number, repeat: number): number => Math.min(4_000, Math.max(400, records * repeat));

/** A bench's shape: `records` of `valueSize` B each, `repeat` times, in batches of at most `maxBatch` over `partitions`. */
export interface FloorShape {
  records: number;
  repeat: number;
  valueSize: number;
  partitions: number;
  maxBatch: number;
}

/** The floors' sampler for a bench of that shape, its probe files in `dir` (the temp dir when undefined). */
export function openFloorsFor(dir: string | undefined, shape: FloorShape): Promise<FloorSampler> {
  // A record as storage frames it (length, header, two CRCs around key and value): the floor's fsync writes as much.
  const recordBytes = recordSize({
    attrs: 0,
    timestamp: 0n,
    key: new Uint8Array(KEY_BYTES),
    value: new Uint8Array(shape.valueSize),
  });
  const files = Math.min(shape.partitions, shape.records);
  const bytesPerFile = Math.ceil((Math.min(shape.records, shape.maxBatch) * recordBytes) / files);
  const samples = floorSamples(shape.records, shape.repeat);
  return FloorSampler.open(dir, { samples, recordBytes, batch: { files, bytesPerFile } });
}

/** What a FloorSampler samples: `samples` of the round trip and of the lone fsync, a quarter as many batch fsyncs. */
export interface FloorPlan {
  samples: number;
  recordBytes: number;
  batch?: BatchLayout | undefined;
}

/**
 * The floors sampled in rounds spread over a run (one before each timed repeat), not in one burst before it: a disk
 * whose fsyncs are slow for a second or two (another process's writeback, the journal) then weighs on the floor as it
 * weighs on the modes timed in the same stretch, so p99 is compared with p99 of the same time.
 */
export class FloorSampler {
  private readonly rtt: number[] = [];
  private readonly fsync: number[] = [];
  private readonly batchFsync: number[] = [];

  private constructor(
    private readonly plan: FloorPlan,
    private readonly echo: RttProbe,
    private readonly single: FsyncProbe,
    private readonly batch: FsyncProbe | undefined,
  ) {}

  /** Starts the echo peer and creates the probe files in `dir` (the temp dir when undefined); all warmed up. */
  static async open(dir: string | undefined, plan: FloorPlan): Promise<FloorSampler> {
    const where = dir ?? os.tmpdir();
    const echo = await RttProbe.open(Math.min(50, plan.samples));
    const probes: FsyncProbe[] = [];
    try {
      probes.push(await FsyncProbe.open(where, { files: 1, bytesPerFile: plan.recordBytes }));
      if (plan.batch) probes.push(await FsyncProbe.open(where, plan.batch));
    } catch (err) {
      await Promise.all([echo.close(), ...probes.map((p) => p.close())]);
      throw err;
    }
    return new FloorSampler(plan, echo, probes[0]!, probes[1]);
  }

  /** Round `k` of `rounds`: its share of each floor's samples (the shares add up to the plan's counts). */
  async sampleRound(k: number, rounds: number): Promise<void> {
    const share = (total: number): number => Math.floor(((k + 1) * total) / rounds) - Math.floor((k * total) / rounds);
    for (let i = share(this.plan.samples); i > 0; i--) this.rtt.push(await this.echo.roundTrip());
    for (let i = share(this.plan.samples); i > 0; i--) this.fsync.push(await this.single.once());
    if (this.batch)
      for (let i = share(Math.ceil(this.plan.samples / 4)); i > 0; i--) this.batchFsync.push(await this.batch.once());
  }

  result(): Floors {
    const rttMs = percentiles(this.rtt);
    const fsyncMs = percentiles(this.fsync);
    const perRecordMeanMs = mean(this.rtt) + mean(this.fsync);
    const floors: Floors = { rttMs, fsyncMs, perRecordMs: rttMs.p50 + fsyncMs.p50, perRecordMeanMs };
    if (this.plan.batch) {
      const batchFsync = percentiles(this.batchFsync);
      floors.batch = { ...this.plan.batch, fsyncMs: batchFsync, ms: rttMs.p50 + batchFsync.p50 };
    }
    return floors;
  }

  async close(): Promise<void> {
    await Promise.all([this.echo.close(), this.single.close(), this.batch?.close()]);
  }
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** The round-trip floor's peer: its process, the port it echoes on, and how to stop it (resolves once it exited). */
export interface EchoPeer {
  pid: number;
  port: number;
  stop(): Promise<void>;
}

/** Forks the echo child (no inherited node flags: a profiled bench must not profile it) and waits for its port. */
export async function startEchoPeer(): Promise<EchoPeer> {
  const child = fork(compiledBenchFile('echo-child.js'), [], {
    execArgv: [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
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

/** A connection to the echo peer: one 1-byte round trip at a time. */
class RttProbe {
  private readonly one = Buffer.from([1]);

  private constructor(
    private readonly peer: EchoPeer,
    private readonly socket: net.Socket,
  ) {}

  /** Connects (Nagle off) and runs `warmup` untimed round trips. */
  static async open(warmup: number): Promise<RttProbe> {
    const peer = await startEchoPeer();
    const socket = net.connect(peer.port, '127.0.0.1');
    socket.setNoDelay(true);
    const probe = new RttProbe(peer, socket);
    try {
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      for (let i = 0; i < warmup; i++) await probe.roundTrip();
      return probe;
    } catch (err) {
      await probe.close();
      throw err;
    }
  }

  /** One round trip, ms. */
  roundTrip(): Promise<number> {
    const t0 = performance.now();
    return new Promise((resolve) => {
      this.socket.once('data', () => resolve(performance.now() - t0));
      this.socket.write(this.one);
    });
  }

  async close(): Promise<void> {
    this.socket.destroy();
    await this.peer.stop();
  }
}

/** `files` files in a temp folder of `dir`; each sample appends `bytesPerFile` to each, then times their fsyncs at once. */
class FsyncProbe {
  private pos = 0;

  private constructor(
    private readonly folder: string,
    private readonly handles: fs.FileHandle[],
    private readonly buf: Buffer,
  ) {}

  /** Creates the files and runs 10 untimed samples. */
  static async open(dir: string, layout: BatchLayout): Promise<FsyncProbe> {
    const folder = await fs.mkdtemp(path.join(dir, 'fsync-floor-'));
    const probe = new FsyncProbe(folder, [], Buffer.alloc(Math.max(1, layout.bytesPerFile), 0x5a));
    try {
      for (let f = 0; f < layout.files; f++) probe.handles.push(await fs.open(path.join(folder, `probe-${f}`), 'w'));
      for (let i = 0; i < 10; i++) await probe.once();
      return probe;
    } catch (err) {
      await probe.close();
      throw err;
    }
  }

  /** One sample, ms: the appends are not timed, the fsyncs (run at once) are. */
  async once(): Promise<number> {
    const { buf, handles } = this;
    await Promise.all(handles.map((fh) => fh.write(buf, 0, buf.length, this.pos)));
    this.pos += buf.length;
    const t0 = performance.now();
    await Promise.all(handles.map((fh) => fh.sync()));
    return performance.now() - t0;
  }

  async close(): Promise<void> {
    await Promise.all(this.handles.map((fh) => fh.close()));
    await fs.rm(this.folder, { recursive: true, force: true });
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
  const singleOverMeanFloor = floors.perRecordMeanMs > 0 ? singlePerRecordMs / floors.perRecordMeanMs : 0;
  const p99OverFsyncP99 = singleP99Ms / floors.fsyncMs.p99;
  const t = BatchVsSingleTargets;
  return {
    singleOverFloor,
    singleOverMeanFloor,
    p99OverFsyncP99,
    batchOverFloor: floors.batch ? batchMedianMs / floors.batch.ms : null,
    targets: {
      batchMedianMs: ceiling(t.batchMedianMs, batchMedianMs),
      floorRatio: ceiling(t.floorRatio, singleOverFloor),
      p99OverFsyncP99: ceiling(t.p99OverFsyncP99, p99OverFsyncP99),
    },
  };
}
