/**
 * Batch-consumer throughput (issue 14's targets), in one run against one broker: N records produced once, then
 * read three ways, each with a fresh group over the same records:
 *
 *   fetch           plain batched FETCH until every record came back (bench throughput's fetch phase)
 *   batch-consumer  client.batchConsumer with a no-op handler, timed from run() until stop() resolved, i.e. every
 *                   record consumed, its watermark committed, and the consumer closed
 *   exec            optional: `consume --exec CMD` (the caller supplies the runner, which lives in cli/)
 *
 * Each path runs once untimed on a warm-up topic first, so the figures are the JIT's steady state; then the fetch and
 * batch-consumer paths alternate `repeat` times (a fresh group each time) and the report gives each path's median
 * run, so a noisy machine slows both alike rather than whichever ran during a burst. Returns a report; never
 * prints.
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
  exec?: { command: string; run: ExecPhaseRunner } | undefined;
  onProgress?: (step: string) => void;
}

export interface ConsumePhase {
  records: number;
  batches: number;
  wallMs: number;
  recordsPerSec: number;
  mbPerSec: number;
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
  };
  fetch: ConsumePhase;
  batchConsumer: ConsumePhase;
  exec: ConsumePhase | null;
  /** Median batch-consumer records/s ÷ median fetch records/s (target ≥ 0.9). */
  batchToFetchRatio: number;
  /**
   * The median of each run's batch-consumer ÷ fetch ratio: the two paths of one run ran back to back, so a burst of
   * machine load that slows a whole run cancels out of its ratio. The figure to trust on a busy machine.
   */
  pairedRatio: number;
  /** Each run's records/s, in run order. */
  runs: { fetch: number[]; batchConsumer: number[]; exec: number[] };
}

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

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; wallMs: number }> {
  const t0 = performance.now();
  const value = await fn();
  return { value, wallMs: performance.now() - t0 };
}

export async function runConsumerBench(options: ConsumerBenchOptions = {}): Promise<ConsumerBenchReport> {
  const records = positiveInt('records', options.records ?? ConsumerBenchDefaults.records);
  const valueSize = positiveInt('value size', options.valueSize ?? ConsumerBenchDefaults.valueSize, 1_000_000);
  const partitions = positiveInt('partitions', options.partitions ?? ConsumerBenchDefaults.partitions, 1024);
  const maxSize = positiveInt('max size', options.maxSize ?? ConsumerBenchDefaults.maxSize);
  const fetchSize = positiveInt('fetch size', options.fetchSize ?? ConsumerBenchDefaults.fetchSize, 0xffff_ffff);
  const workers = positiveInt('workers', options.workers ?? ConsumerBenchDefaults.workers, 1024);
  const repeat = positiveInt('repeat', options.repeat ?? ConsumerBenchDefaults.repeat, 100);
  const progress = options.onProgress ?? (() => undefined);
  progress(options.broker ? `connecting to ${options.broker}` : 'starting the embedded broker');
  const target = await openTarget(options);
  const admin = await target.connect();
  const topics: string[] = [];
  try {
    const warm = benchTopicName('bench-cons-warm');
    const topic = benchTopicName('bench-cons');
    topics.push(warm, topic);
    const warmCount = Math.min(records, 50_000);
    progress('producing');
    await fill(admin, warm, partitions, warmCount, valueSize);
    await fill(admin, topic, partitions, records, valueSize);
    const shape = { maxSize, fetchSize, workers };
    progress('warming up');
    await plainFetch(target, warm, warmCount, fetchSize);
    await batchConsume(target, warm, warmCount, shape);
    if (options.exec) await options.exec.run(admin, warm, benchTopicName('bench-exec'), warmCount);
    const bytesPerRecord = KEY_BYTES + valueSize;
    const phase = (n: number, batches: number, wallMs: number): ConsumePhase => ({
      records: n,
      batches,
      wallMs,
      recordsPerSec: perSecond(n, wallMs),
      mbPerSec: perSecond(n * bytesPerRecord, wallMs) / MB,
    });
    const fetches: ConsumePhase[] = [];
    const batches: ConsumePhase[] = [];
    const execs: ConsumePhase[] = [];
    for (let r = 1; r <= repeat; r++) {
      progress(`run ${r} of ${repeat}: fetching ${records} records`);
      const f = await timed(() => plainFetch(target, topic, records, fetchSize));
      fetches.push(phase(f.value.records, f.value.batches, f.wallMs));
      progress(`run ${r} of ${repeat}: batch-consuming ${records} records`);
      const b = await timed(() => batchConsume(target, topic, records, shape));
      batches.push(phase(b.value.records, b.value.batches, b.wallMs));
      if (options.exec) {
        progress(`run ${r} of ${repeat}: consume --exec ${options.exec.command}`);
        const e = await options.exec.run(admin, topic, benchTopicName('bench-exec'), records);
        execs.push(phase(e.records, e.batches, e.wallMs));
      }
    }
    const fetch = median(fetches);
    const batchConsumer = median(batches);
    return {
      kind: 'consumer',
      broker: target.info,
      params: {
        records,
        valueSize,
        keySize: KEY_BYTES,
        partitions,
        maxSize,
        fetchSize,
        workers,
        repeat,
        execCommand: options.exec?.command ?? null,
      },
      fetch,
      batchConsumer,
      exec: execs.length > 0 ? median(execs) : null,
      batchToFetchRatio: batchConsumer.recordsPerSec / fetch.recordsPerSec,
      pairedRatio: medianOf(batches.map((b, i) => b.recordsPerSec / fetches[i]!.recordsPerSec)),
      runs: {
        fetch: fetches.map((p) => p.recordsPerSec),
        batchConsumer: batches.map((p) => p.recordsPerSec),
        exec: execs.map((p) => p.recordsPerSec),
      },
    };
  } finally {
    for (const t of topics) await admin.deleteTopic(t).catch(() => undefined);
    await admin.close();
    await target.close();
  }
}
