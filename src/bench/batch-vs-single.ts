/**
 * Batch vs single (seed 000): N records produced one PRODUCE at a time, each awaited, against the same N records in
 * one PRODUCE_BATCH; K alternating repeats after one untimed warm-up of each mode. Optionally a sweep over batch
 * sizes. Beside them the floors (floors.ts): one loopback round trip and one fsync, and how far single mode is
 * above their sum. Returns a report; never prints.
 *
 * With `idempotent` both modes go through one ephemeral idempotent producer (its own connection, one
 * INIT_PRODUCER_ID during the warm-up): single mode sends PRODUCE_IDEMPOTENT per record, batch mode IDEMPOTENT
 * PRODUCE_BATCH frames, which hold at most 1,024 records, so N > 1,024 takes ceil(N / 1,024) batches.
 */
import path from 'node:path';
import type { Backend as Client, BackendProducer as Producer } from '../client/backend.js';
import type { BatchResult, ProduceAck, ProducerRecord } from '../client/moonmq/produce-ops.js';
import { splitBatch } from '../client/moonmq/split-batch.js';
import { UsageError } from '../errors.js';
import { Limits } from '../protocol/limits.js';
import { warmupBatchRounds, warmupCount, warmupSingles } from './batch-vs-single-warmup.js';
import { type CeilingTarget, FloorSampler, type Floors, openFloorsFor, overFloors } from './floors.js';
import { type Percentiles, type Spread, percentiles, perSecond, spread } from './stats.js';
import {
  type BenchCodec,
  type BenchTarget,
  type BrokerInfo,
  KEY_BYTES,
  type TargetOptions,
  benchRecords,
  benchTopicName,
  openTarget,
} from './target.js';

export { BatchVsSingleTargets, type CeilingTarget } from './floors.js';
export { WARMUP_SINGLES } from './batch-vs-single-warmup.js';

export interface BatchVsSingleOptions extends TargetOptions {
  records?: number;
  valueSize?: number;
  partitions?: number;
  codec?: BenchCodec;
  repeat?: number;
  /** A sweep: the records produced in batches of each size, one batch awaited at a time. */
  batchSizes?: readonly number[];
  /** Both modes through an idempotent producer (a crater broker, or one with idempotence). */
  idempotent?: boolean;
  /** Untimed single produces before anything is timed (default WARMUP_SINGLES). */
  warmupSingles?: number;
  /** Called with a short description of the step about to run (for a spinner). */
  onProgress?: (step: string) => void;
}

export interface ModeFigures {
  /** Wall time of one repeat, milliseconds. */
  wallMs: Spread;
  recordsPerSec: Spread;
  /** Request frames sent per repeat. */
  frames: number;
  /** fsyncs of user topics the broker issued during each repeat; null when the broker is not the embedded one. */
  fsyncs: number[] | null;
}

export interface SweepPoint {
  batchSize: number;
  frames: number;
  wallMs: Spread;
  recordsPerSec: Spread;
  fsyncs: number[] | null;
}

export interface BatchVsSingleReport {
  kind: 'batch-vs-single';
  broker: BrokerInfo;
  params: {
    records: number;
    valueSize: number;
    keySize: number;
    partitions: number;
    codec: BenchCodec;
    repeat: number;
    idempotent: boolean;
    /** Untimed single produces run before the floors and the timed modes (the JIT's warm-up). */
    warmupSingles: number;
  };
  single: ModeFigures & { latencyMs: Percentiles } & SingleCosts;
  /** `batchSize`: records per PRODUCE_BATCH (all of them, or 1,024 when idempotent; fewer where a frame is full). */
  batch: ModeFigures & { batchSize: number };
  /** single median wall time ÷ batch median wall time. */
  speedup: number;
  sweep: SweepPoint[] | null;
  /** One loopback round trip and one fsync, measured in the same run (floors.ts). */
  floors: Floors;
  /** Single mode's median wall time per record ÷ floors.perRecordMs (1 would be at the floor). */
  singleOverFloor: number;
  /** The same ÷ floors.perRecordMeanMs (mean round trip + mean fsync): how far above the floor once tails count. */
  singleOverMeanFloor: number;
  /** Single mode's per-record p99 ÷ the fsync p99. */
  p99OverFsyncP99: number;
  /**
   * Batch mode's median wall time ÷ floors.batch.ms (one round trip + the batch's partition fsyncs at once, each of
   * its share of the bytes): the physical floor the ≤ 1 ms target is to be read against.
   */
  batchOverFloor: number | null;
  /** Issue 18's targets, each an upper bound on the figure it names. */
  targets: {
    /** Batch mode's median wall time, ms (≤ 1). */
    batchMedianMs: CeilingTarget;
    /** `singleOverFloor` (≤ 1.3). */
    floorRatio: CeilingTarget;
    /** `p99OverFsyncP99` (≤ 3). */
    p99OverFsyncP99: CeilingTarget;
  };
}

/** What single mode's time went to: CPU per record on each side, and the broker's fsyncs as it saw them. */
export interface SingleCosts {
  /** CPU (user + system) per record, µs, median over the repeats; broker null when it is not the embedded one. */
  cpuUsPerRecord: { broker: number | null; client: number };
  /**
   * The embedded broker's fsyncs during each repeat, from the call to its callback (threadpool queueing and the
   * disk's flush): p50 and p99 per repeat, ms. Beside `floors.fsyncMs` it says whether a slow p99 was the disk's.
   */
  brokerFsyncMs: { p50: number[]; p99: number[] } | null;
}

export const BatchVsSingleDefaults = { records: 400, valueSize: 100, partitions: 4, codec: 'none', repeat: 5 } as const;

function positiveInt(name: string, v: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(v) || v < 1 || v > max) throw new UsageError(`${name} must be an integer 1..${max}, got ${v}`);
  return v;
}

type BatchVsSingleParams = BatchVsSingleReport['params'] & { batchSizes: number[] | undefined };

/** The options checked and defaulted (every bound is a UsageError). */
function batchVsSingleParams(options: BatchVsSingleOptions): BatchVsSingleParams {
  const idempotent = options.idempotent ?? false;
  const maxBatch = idempotent ? Limits.idempotentBatchRecords : Limits.batchRecords;
  const sizeName = idempotent ? 'batch size of an idempotent producer' : 'batch size';
  return {
    records: positiveInt('records', options.records ?? BatchVsSingleDefaults.records),
    valueSize: positiveInt('value size', options.valueSize ?? BatchVsSingleDefaults.valueSize, 1_000_000),
    keySize: KEY_BYTES,
    partitions: positiveInt('partitions', options.partitions ?? BatchVsSingleDefaults.partitions, 1024),
    codec: options.codec ?? BatchVsSingleDefaults.codec,
    repeat: positiveInt('repeat', options.repeat ?? BatchVsSingleDefaults.repeat, 1000),
    idempotent,
    warmupSingles: warmupCount(options.warmupSingles),
    batchSizes: options.batchSizes?.map((b) => positiveInt(sizeName, b, maxBatch)),
  };
}

export async function runBatchVsSingle(options: BatchVsSingleOptions = {}): Promise<BatchVsSingleReport> {
  const { batchSizes, ...params } = batchVsSingleParams(options);
  const progress = options.onProgress ?? (() => undefined);
  progress(options.broker ? `connecting to ${options.broker}` : 'starting the embedded broker');
  const target = await openTarget(options);
  try {
    const client = await target.connect();
    const producer = params.idempotent ? client.producer({ idempotent: true, codec: params.codec }) : undefined;
    try {
      const topic = benchTopicName('bench-bvs');
      await client.createTopic(topic, params.partitions);
      const run: ModeRun = {
        topic,
        data: benchRecords({ count: params.records, valueSize: params.valueSize }),
        send: sender(client, producer, params.codec),
        fsyncs: brokerMeter(target),
        params,
        progress,
      };
      const report = await measureAll(run, target, batchSizes);
      await client.deleteTopic(topic).catch(() => undefined);
      return report;
    } finally {
      await producer?.close();
      await client.close();
    }
  } finally {
    await target.close();
  }
}

/** Warm-up, the floors, both modes and the optional sweep, on an open topic; the report. */
async function measureAll(
  run: ModeRun,
  target: BenchTarget,
  batchSizes: readonly number[] | undefined,
): Promise<BatchVsSingleReport> {
  const { topic, data, params, progress } = run;
  const maxBatch = params.idempotent ? Limits.idempotentBatchRecords : Limits.batchRecords;
  const chunks = splitBatch(data, { topic, maxRecords: maxBatch, idempotent: params.idempotent });
  progress('warming up');
  await runSingle(run.send, topic, warmupSingles(data, params.warmupSingles), []);
  for (let k = warmupBatchRounds(params.records); k > 0; k--) await runBatched(run.send, topic, chunks);
  progress('opening the floors: an echo peer, fsync probe files');
  const floorDir = target.embedded ? path.dirname(target.embedded.dataDir) : undefined;
  const sampler = await openFloorsFor(floorDir, { ...params, maxBatch });
  let floors: Floors;
  let modes: Awaited<ReturnType<typeof measureModes>>;
  try {
    modes = await measureModes(run, chunks, sampler);
    floors = sampler.result();
  } finally {
    await sampler.close();
  }
  const { single, batch } = modes;
  const sweep = batchSizes ? await measureSweep(run, batchSizes) : null;
  const enabled = run.fsyncs.enabled;
  const singleWall = spread(single.wall);
  const batchWall = spread(batch.wall);
  const singleLatency = percentiles(single.latencies);
  return {
    kind: 'batch-vs-single',
    broker: target.info,
    params,
    single: {
      wallMs: singleWall,
      recordsPerSec: rates(params.records, single.wall),
      frames: params.records,
      fsyncs: enabled ? single.fsyncs : null,
      latencyMs: singleLatency,
      cpuUsPerRecord: {
        broker: enabled ? spread(single.brokerCpuUs).median : null,
        client: spread(single.clientCpuUs).median,
      },
      brokerFsyncMs: enabled ? single.brokerFsync : null,
    },
    batch: {
      wallMs: batchWall,
      recordsPerSec: rates(params.records, batch.wall),
      frames: chunks.length,
      batchSize: Math.min(params.records, maxBatch),
      fsyncs: enabled ? batch.fsyncs : null,
    },
    speedup: batchWall.median > 0 ? singleWall.median / batchWall.median : 0,
    sweep,
    floors,
    ...overFloors(singleWall.median / params.records, singleLatency.p99, batchWall.median, floors),
  };
}

interface ModeRun {
  topic: string;
  data: ProducerRecord[];
  send: Sender;
  fsyncs: BrokerMeter;
  params: BatchVsSingleReport['params'];
  progress: (message: string) => void;
}

/**
 * `repeat` rounds of: the round's share of the floors' samples (untimed), every record as its own PRODUCE, then all
 * of them in batches; wall times and fsyncs of each.
 */
async function measureModes(run: ModeRun, chunks: readonly (readonly ProducerRecord[])[], floors: FloorSampler) {
  const { topic, data, send, fsyncs } = run;
  const { records, repeat } = run.params;
  const single = {
    wall: [] as number[],
    fsyncs: [] as number[],
    latencies: [] as number[],
    clientCpuUs: [] as number[],
    brokerCpuUs: [] as number[],
    brokerFsync: { p50: [] as number[], p99: [] as number[] },
  };
  const batch = { wall: [] as number[], fsyncs: [] as number[] };
  for (let k = 0; k < repeat; k++) {
    run.progress(`repeat ${k + 1}/${repeat}: the floors' samples, ${records} single produces`);
    await floors.sampleRound(k, repeat);
    const start = await fsyncs.read(true);
    const cpu = process.cpuUsage();
    single.wall.push(await runSingle(send, topic, data, single.latencies));
    const clientCpu = process.cpuUsage(cpu);
    const end = await fsyncs.read(false);
    single.clientCpuUs.push((clientCpu.user + clientCpu.system) / records);
    single.fsyncs.push(end.fsyncs - start.fsyncs);
    single.brokerCpuUs.push(((end.cpuMs - start.cpuMs) * 1000) / records);
    single.brokerFsync.p50.push(end.fsyncMs.p50);
    single.brokerFsync.p99.push(end.fsyncMs.p99);
    run.progress(`repeat ${k + 1}/${repeat}: one batch of ${records}`);
    const before = (await fsyncs.read(false)).fsyncs;
    batch.wall.push(await runBatched(send, topic, chunks));
    batch.fsyncs.push((await fsyncs.read(false)).fsyncs - before);
  }
  return { single, batch };
}

/** One point per batch size: the records sent in batches of that size, `repeat` times. */
async function measureSweep(run: ModeRun, batchSizes: readonly number[]): Promise<SweepPoint[]> {
  const { topic, data, send, fsyncs } = run;
  const { records, repeat, idempotent } = run.params;
  const sweep: SweepPoint[] = [];
  for (const size of batchSizes) {
    const sized = splitBatch(data, { topic, maxRecords: size, idempotent });
    const wall: number[] = [];
    const counts: number[] = [];
    for (let k = 0; k < repeat; k++) {
      run.progress(`sweep: batches of ${size}, repeat ${k + 1}/${repeat}`);
      const before = (await fsyncs.read(false)).fsyncs;
      wall.push(await runBatched(send, topic, sized));
      counts.push((await fsyncs.read(false)).fsyncs - before);
    }
    const point = { batchSize: size, frames: sized.length, wallMs: spread(wall), recordsPerSec: rates(records, wall) };
    sweep.push({ ...point, fsyncs: fsyncs.enabled ? counts : null });
  }
  return sweep;
}

/** Records/s of each repeat, spread; the median rate is the rate of the median wall time. */
export function rates(records: number, wallMs: readonly number[]): Spread {
  return spread(wallMs.map((ms) => perSecond(records, ms)));
}

/** The embedded broker's counters at one moment: user-topic fsyncs, CPU ms, fsync timings of the window. */
interface BrokerReading {
  fsyncs: number;
  cpuMs: number;
  fsyncMs: Percentiles;
}

interface BrokerMeter {
  enabled: boolean;
  /** `window`: start a new fsync-timing window (its timings are then those since this read). */
  read(window: boolean): Promise<BrokerReading>;
}

const NO_PERCENTILES: Percentiles = { p50: 0, p90: 0, p99: 0, p999: 0, max: 0, count: 0 };

function brokerMeter(target: BenchTarget): BrokerMeter {
  const embedded = target.embedded;
  if (!embedded) return { enabled: false, read: async () => ({ fsyncs: 0, cpuMs: 0, fsyncMs: NO_PERCENTILES }) };
  return {
    enabled: true,
    read: async (window) => {
      const s = window ? await embedded.resetPeak() : await embedded.stats();
      return { fsyncs: s.userFsyncCount, cpuMs: s.cpuMs, fsyncMs: s.fsyncs.ms };
    },
  };
}

/** The two requests the modes time: plain PRODUCE / PRODUCE_BATCH on the client, or the idempotent producer's. */
interface Sender {
  one(topic: string, record: ProducerRecord): Promise<ProduceAck>;
  batch(topic: string, records: readonly ProducerRecord[]): Promise<BatchResult>;
}

function sender(client: Client, producer: Producer | undefined, codec: BenchCodec): Sender {
  if (producer)
    return {
      one: (topic, r) => producer.send(topic, { key: r.key, value: r.value }),
      batch: (topic, rs) => producer.sendBatch(topic, rs),
    };
  return {
    one: (topic, r) => client.produce(topic, { key: r.key, value: r.value, codec }),
    batch: (topic, rs) => client.produceBatch(topic, rs, { codec }),
  };
}

async function runSingle(
  send: Sender,
  topic: string,
  records: readonly ProducerRecord[],
  latencies: number[],
): Promise<number> {
  const start = performance.now();
  for (const r of records) {
    const t0 = performance.now();
    await send.one(topic, r);
    latencies.push(performance.now() - t0);
  }
  return performance.now() - start;
}

async function runBatched(
  send: Sender,
  topic: string,
  chunks: readonly (readonly ProducerRecord[])[],
): Promise<number> {
  const start = performance.now();
  for (const chunk of chunks) {
    const result = await send.batch(topic, chunk);
    if (result.error) throw result.error;
  }
  return performance.now() - start;
}
