/**
 * Batch-consumer throughput (issue 14's targets), in one run against one broker: N records produced once, then
 * read three ways, each with a fresh group over the same records:
 *
 *   fetch           plain batched FETCH until every record came back (bench throughput's fetch phase)
 *   batch-consumer  client.batchConsumer with a no-op handler, timed from run() until stop() resolved, i.e. every
 *                   record consumed, its watermark committed, and the consumer closed
 *   exec            optional: `consume --exec CMD` (the caller supplies the runner, which lives in cli/)
 *
 * Each path runs once untimed on a warm-up topic first, so the figures are the JIT's steady state; then the paths
 * alternate `repeat` times (a fresh group each time) and the report gives each path's median run, each run's
 * batch-consumer / fetch ratio and their median, so a noisy machine slows both alike rather than whichever ran during
 * a burst. Every phase also reports the CPU time the consumer (this process) and the embedded broker spent per
 * record, which a loaded machine disturbs far less than wall time. `targets` judges issue 14's two figures directly.
 * Returns a report; never prints.
 */
import type { Backend as Client } from '../client/backend.js';
import { UsageError } from '../errors.js';
import { MB, perSecond } from './stats.js';
import {
  type BrokerInfo,
  KEY_BYTES,
  type TargetOptions,
  type BenchTarget,
  benchRecords,
  benchTopicName,
  openTarget,
} from './target.js';

/** Runs `consume --exec` over `topic` as `group` until `records` were consumed; resolves with its wall time. */
export type ExecPhaseRunner = (
  client: Client,
  topic: string,
  group: string,
  records: number,
) => Promise<{ wallMs: number; records: number; batches: number }>;

export interface ConsumerBenchOptions extends TargetOptions {
  records?: number;
  valueSize?: number;
  partitions?: number;
  /** Batch consumer maxSize (default 500). */
  maxSize?: number;
  /** Records per FETCH for both the plain fetch and the batch consumer (default 1000). */
  fetchSize?: number;
  workers?: number;
  /** Timed runs of each path (default 3); the median is reported. */
  repeat?: number;
  /** The `consume --exec` path: its command, its records per batch (reported only) and its runner. */
  exec?: { command: string; batchSize?: number; run: ExecPhaseRunner } | undefined;
  onProgress?: (step: string) => void;
}

export interface ConsumePhase {
  records: number;
  batches: number;
  wallMs: number;
  recordsPerSec: number;
  mbPerSec: number;
  /** CPU time of this (bench) process during the phase; the consumer's side, load-independent unlike wallMs. */
  clientCpuMs: number;
  /** clientCpuMs per record, µs. */
  clientUsPerRecord: number;
  /** The embedded broker's CPU time during the phase (null for a broker given by address). */
  brokerCpuMs: number | null;
  brokerUsPerRecord: number | null;
}

/** One of issue 14's targets, judged on the figure it names. */
export interface ConsumerTarget {
  target: number;
  measured: number;
  met: boolean;
}

export interface ConsumerBenchReport {
  kind: 'consumer';
  broker: BrokerInfo;
  params: {
    records: number;
    valueSize: number;
    keySize: number;
    partitions: number;
    maxSize: number;
    fetchSize: number;
    workers: number;
    repeat: number;
    execCommand: string | null;
    execBatchSize: number | null;
  };
  fetch: ConsumePhase;
  batchConsumer: ConsumePhase;
  exec: ConsumePhase | null;
  /** Median batch-consumer records/s ÷ median fetch records/s. */
  batchToFetchRatio: number;
  /**
   * The median of each run's batch-consumer ÷ fetch ratio: the two paths of one run ran back to back ("in the same
   * run", as the target says), so a burst of machine load that slows a whole run cancels out of its ratio.
   */
  pairedRatio: number;
  /** Each run's records/s, in run order, and each run's batch-consumer ÷ fetch ratio. */
  runs: { fetch: number[]; batchConsumer: number[]; exec: number[]; pairedRatios: number[] };
  /**
   * Issue 14's targets: the batch consumer at >= 0.9x plain fetch in the same run (judged on pairedRatio), and
   * `consume --exec` at >= 200,000 records/s (its median run); exec is null when the path was skipped.
   */
  targets: { batchToFetch: ConsumerTarget; execRecordsPerSec: ConsumerTarget | null };
}

export const ConsumerTargets = { batchToFetch: 0.9, execRecordsPerSec: 200_000 } as const;

export const ConsumerBenchDefaults = {
  records: 200_000,
  valueSize: 100,
  partitions: 4,
  maxSize: 500,
  fetchSize: 1000,
  workers: 1,
  repeat: 3,
} as const;

function median(phases: readonly ConsumePhase[]): ConsumePhase {
  return [...phases].sort((a, b) => a.recordsPerSec - b.recordsPerSec)[Math.floor(phases.length / 2)]!;
}

function medianOf(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function positiveInt(name: string, v: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(v) || v < 1 || v > max) throw new UsageError(`${name} must be an integer 1..${max}, got ${v}`);
  return v;
}

async function fill(
  client: Client,
  topic: string,
  partitions: number,
  records: number,
  valueSize: number,
): Promise<void> {
  await client.createTopic(topic, partitions);
  const batch = benchRecords({ count: Math.min(records, 5_000), valueSize });
  for (let sent = 0; sent < records; sent += batch.length) {
    const result = await client.produceBatch(topic, batch.slice(0, Math.min(batch.length, records - sent)));
    if (result.error) throw result.error;
  }
}

async function plainFetch(
  target: BenchTarget,
  topic: string,
  expected: number,
  fetchSize: number,
): Promise<{ records: number; batches: number }> {
  const client = await target.connect();
  try {
    const group = benchTopicName('bench-fetch');
    let records = 0;
    let batches = 0;
    let empty = 0;
    while (records < expected) {
      const got = (await client.fetch(topic, group, { maxRecords: fetchSize })).records.length;
      records += got;
      batches++;
      if (got === 0 && ++empty > 50) throw new Error(`fetch stalled at ${records} of ${expected} records`);
    }
    return { records, batches };
  } finally {
    await client.close();
  }
}

async function batchConsume(
  target: BenchTarget,
  topic: string,
  expected: number,
  o: { maxSize: number; fetchSize: number; workers: number },
): Promise<{ records: number; batches: number }> {
  const client = await target.connect();
  try {
    const bc = client.batchConsumer({
      group: benchTopicName('bench-batch'),
      topics: topic,
      maxSize: o.maxSize,
      timeoutMs: 50,
      workers: o.workers,
      fetchMaxRecords: o.fetchSize,
    });
    await bc.run((batch) => {
      if (bc.stats.records >= expected && batch.count > 0) void bc.stop();
    });
    return { records: bc.stats.processed, batches: bc.stats.batches };
  } finally {
    await client.close();
  }
}

interface Resolved {
  records: number;
  valueSize: number;
  partitions: number;
  maxSize: number;
  fetchSize: number;
  workers: number;
  repeat: number;
}

function resolve(options: ConsumerBenchOptions): Resolved {
  const d = ConsumerBenchDefaults;
  return {
    records: positiveInt('records', options.records ?? d.records),
    valueSize: positiveInt('value size', options.valueSize ?? d.valueSize, 1_000_000),
    partitions: positiveInt('partitions', options.partitions ?? d.partitions, 1024),
    maxSize: positiveInt('max size', options.maxSize ?? d.maxSize),
    fetchSize: positiveInt('fetch size', options.fetchSize ?? d.fetchSize, 0xffff_ffff),
    workers: positiveInt('workers', options.workers ?? d.workers, 1024),
    repeat: positiveInt('repeat', options.repeat ?? d.repeat, 100),
  };
}

/** Times one phase: wall clock, this process's CPU and (embedded broker) the broker's CPU. */
async function measure(
  target: BenchTarget,
  bytesPerRecord: number,
  fn: () => Promise<{ records: number; batches: number; wallMs?: number }>,
): Promise<ConsumePhase> {
  const brokerBefore = await target.embedded?.stats();
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const r = await fn();
  const wallMs = r.wallMs ?? performance.now() - t0;
  const used = process.cpuUsage(cpu);
  const brokerAfter = await target.embedded?.stats();
  const clientCpuMs = (used.user + used.system) / 1000;
  const brokerCpuMs = brokerBefore && brokerAfter ? brokerAfter.cpuMs - brokerBefore.cpuMs : null;
  const perRecord = (ms: number): number => (r.records > 0 ? (ms * 1000) / r.records : 0);
  return {
    records: r.records,
    batches: r.batches,
    wallMs,
    recordsPerSec: perSecond(r.records, wallMs),
    mbPerSec: perSecond(r.records * bytesPerRecord, wallMs) / MB,
    clientCpuMs,
    clientUsPerRecord: perRecord(clientCpuMs),
    brokerCpuMs,
    brokerUsPerRecord: brokerCpuMs === null ? null : perRecord(brokerCpuMs),
  };
}

interface Runs {
  fetches: ConsumePhase[];
  batches: ConsumePhase[];
  execs: ConsumePhase[];
}

/** The timed runs: fetch, batch consumer and exec back to back, `repeat` times, on the same records. */
async function timedRuns(
  target: BenchTarget,
  admin: Client,
  topic: string,
  p: Resolved,
  options: ConsumerBenchOptions,
  progress: (step: string) => void,
): Promise<Runs> {
  const runs: Runs = { fetches: [], batches: [], execs: [] };
  const bytesPerRecord = KEY_BYTES + p.valueSize;
  const shape = { maxSize: p.maxSize, fetchSize: p.fetchSize, workers: p.workers };
  for (let r = 1; r <= p.repeat; r++) {
    progress(`run ${r} of ${p.repeat}: fetching ${p.records} records`);
    runs.fetches.push(await measure(target, bytesPerRecord, () => plainFetch(target, topic, p.records, p.fetchSize)));
    progress(`run ${r} of ${p.repeat}: batch-consuming ${p.records} records`);
    runs.batches.push(await measure(target, bytesPerRecord, () => batchConsume(target, topic, p.records, shape)));
    const exec = options.exec;
    if (exec) {
      progress(`run ${r} of ${p.repeat}: consume --exec ${exec.command}`);
      const group = benchTopicName('bench-exec');
      runs.execs.push(await measure(target, bytesPerRecord, () => exec.run(admin, topic, group, p.records)));
    }
  }
  return runs;
}

function targetOf(target: number, measured: number): ConsumerTarget {
  return { target, measured, met: measured >= target };
}

function buildReport(target: BenchTarget, p: Resolved, options: ConsumerBenchOptions, runs: Runs): ConsumerBenchReport {
  const fetch = median(runs.fetches);
  const batchConsumer = median(runs.batches);
  const exec = runs.execs.length > 0 ? median(runs.execs) : null;
  const pairedRatios = runs.batches.map((b, i) => b.recordsPerSec / runs.fetches[i]!.recordsPerSec);
  const pairedRatio = medianOf(pairedRatios);
  return {
    kind: 'consumer',
    broker: target.info,
    params: {
      ...p,
      keySize: KEY_BYTES,
      execCommand: options.exec?.command ?? null,
      execBatchSize: options.exec?.batchSize ?? null,
    },
    fetch,
    batchConsumer,
    exec,
    batchToFetchRatio: batchConsumer.recordsPerSec / fetch.recordsPerSec,
    pairedRatio,
    runs: {
      fetch: runs.fetches.map((x) => x.recordsPerSec),
      batchConsumer: runs.batches.map((x) => x.recordsPerSec),
      exec: runs.execs.map((x) => x.recordsPerSec),
      pairedRatios,
    },
    targets: {
      batchToFetch: targetOf(ConsumerTargets.batchToFetch, pairedRatio),
      execRecordsPerSec: exec && targetOf(ConsumerTargets.execRecordsPerSec, exec.recordsPerSec),
    },
  };
}

export async function runConsumerBench(options: ConsumerBenchOptions = {}): Promise<ConsumerBenchReport> {
  const p = resolve(options);
  const progress = options.onProgress ?? (() => undefined);
  progress(options.broker ? `connecting to ${options.broker}` : 'starting the embedded broker');
  const target = await openTarget(options);
  const admin = await target.connect();
  const topics: string[] = [];
  try {
    const warm = benchTopicName('bench-cons-warm');
    const topic = benchTopicName('bench-cons');
    topics.push(warm, topic);
    const warmCount = Math.min(p.records, 50_000);
    progress('producing');
    await fill(admin, warm, p.partitions, warmCount, p.valueSize);
    await fill(admin, topic, p.partitions, p.records, p.valueSize);
    progress('warming up');
    await plainFetch(target, warm, warmCount, p.fetchSize);
    await batchConsume(target, warm, warmCount, p);
    if (options.exec) await options.exec.run(admin, warm, benchTopicName('bench-exec'), warmCount);
    const runs = await timedRuns(target, admin, topic, p, options, progress);
    return buildReport(target, p, options, runs);
  } finally {
    for (const t of topics) await admin.deleteTopic(t).catch(() => undefined);
    await admin.close();
    await target.close();
  }
}
