/**
 * Sustained throughput: batched produce of a record count (or for a duration) over C connections with N batches
 * pipelined on each, then batched FETCH of everything produced. Latency is measured from each batch's intended send
 * time, so a stalled client or broker is charged for the sends it delayed (coordinated omission): with `ratePerSec`
 * the intended times follow that schedule; without it a batch is intended to go the moment an in-flight slot frees.
 * Returns a report; never prints.
 */
import type { Backend as Client } from '../client/backend.js';
import type { ProducerRecord } from '../client/moonmq/produce-ops.js';
import { UsageError } from '../errors.js';
import { LatencyRecorder } from './latency.js';
import * as scaling from './partition-scaling.js';
import {
  type BenchCodec,
  type BenchTarget,
  type BrokerInfo,
  benchRecords,
  benchTopicName,
  openTarget,
  payloadBytes,
} from './target.js';
import { type PhaseFigures, type PhaseTiming, cpuMs, diff, meter, phaseFigures } from './throughput-figures.js';
import { type ProduceFloor, openProduceFloor } from './throughput-floor.js';
import { type ThroughputOptions, type ThroughputParams, throughputParams } from './throughput-params.js';

export type { PhaseFigures, ProduceFloor };
export {
  type FetchDecode,
  type ThroughputOptions,
  type ThroughputParams,
  ThroughputDefaults,
} from './throughput-params.js';

export interface ThroughputReport {
  kind: 'throughput';
  broker: BrokerInfo;
  params: ThroughputParams;
  produce: PhaseFigures;
  fetch: PhaseFigures;
  /** With `vsPartitions`: that phase, main ÷ its records/s per interleaved round (partition-scaling.ts), the median. */
  partitionScaling: { partitions: number; produce: PhaseFigures; ratio: number; rounds: number[] } | null;
  /** The disk's floor under the produce phase, sampled beside it (throughput-floor.ts); null for an external broker. */
  produceFloor: ProduceFloor | null;
}

export async function runThroughput(options: ThroughputOptions = {}): Promise<ThroughputReport> {
  const params = throughputParams(options);
  if (params.restartBeforeFetch && options.broker !== undefined) {
    throw new UsageError('--restart-before-fetch applies to the embedded broker only');
  }
  const progress = options.onProgress ?? (() => undefined);
  progress(options.broker ? `connecting to ${options.broker}` : 'starting the embedded broker');
  const target = await openTarget(options);
  const clients: Client[] = [];
  let floor: Awaited<ReturnType<typeof openProduceFloor>>;
  try {
    for (let i = 0; i < params.connections; i++) clients.push(await target.connect());
    const run: PhaseRun = {
      target,
      clients,
      params,
      batch: benchRecords({ count: params.batchSize, valueSize: params.valueSize }),
      progress,
    };
    const warm = await warmUp(run, options.warmupRecords ?? 20_000);
    const warmTopic = warm.topic;
    if (options.diskFloor !== false) {
      progress('sampling the disk floor');
      floor = await openProduceFloor(target, run.batch, params);
      await floor?.sample();
    }
    const { produce, scaled } = await measureProducePhases(run);
    if (params.restartBeforeFetch) {
      progress('restarting the broker');
      await target.embedded!.restart();
      // The new process's JIT is cold too: warm it on the warm-up topic, so the timed fetch measures reads of bytes
      // this process never verified (every payload CRC checked), not its first milliseconds of interpreted code.
      await fetchAll(run.target, warmTopic, warm.records, params, new LatencyRecorder());
    }
    const fetch = await measureFetch(run, produce.topic, produce.sent.records);
    await floor?.sample();
    await clients[0]!.deleteTopic(produce.topic).catch(() => undefined);
    await clients[0]!.deleteTopic(warmTopic).catch(() => undefined);
    const bytesPerRecord = payloadBytes(run.batch) / run.batch.length;
    const figures = (t: scaling.ProduceTiming, partitions: number): PhaseFigures =>
      phaseFigures(bytesPerRecord, t.sent.records, t.sent.batches, t, partitions);
    const producePhase = figures(produce, params.partitions);
    return {
      kind: 'throughput',
      broker: target.info,
      params,
      produce: producePhase,
      fetch: phaseFigures(bytesPerRecord, fetch.records, fetch.requests, fetch, params.partitions),
      partitionScaling: scaled ? scaling.scalingFigures(figures(scaled.vs, scaled.partitions), scaled) : null,
      produceFloor: floor?.result(producePhase.recordsPerSec) ?? null,
    };
  } finally {
    await floor?.close();
    await Promise.allSettled(clients.map((c) => c.close()));
    await target.close();
  }
}

interface PhaseRun {
  target: BenchTarget;
  clients: Client[];
  params: ThroughputParams;
  batch: ProducerRecord[];
  progress: (message: string) => void;
}

/**
 * Both paths once, untimed, so the figures are the JIT's steady state rather than its first milliseconds (the first
 * cold fetch pass runs at about half the speed of the second). Returns the warm-up topic (deleted at the end) and its records.
 */
async function warmUp(run: PhaseRun, warmupRecords: number): Promise<{ topic: string; records: number }> {
  const { clients, params, batch } = run;
  const topic = await createTopic(run, params.partitions);
  if (warmupRecords <= 0) return { topic, records: 0 };
  run.progress('warming up');
  const window = {
    batches: Math.max(1, Math.ceil(warmupRecords / params.batchSize)),
    inFlight: params.inFlight,
    intervalMs: undefined,
  };
  const warm = await produceWindow(clients, topic, batch, params.codec, window, new LatencyRecorder(), () => undefined);
  await fetchAll(run.target, topic, warm.records, params, new LatencyRecorder());
  return { topic, records: warm.records };
}

/**
 * The timed produce phase, into a topic of its own: by record count or for a duration, open-loop with a rate; with
 * --vs-partitions, it and the phase into that many partitions as interleaved rounds (partition-scaling.ts).
 */
async function measureProducePhases(
  run: PhaseRun,
): Promise<{ produce: scaling.ProduceTiming; scaled?: scaling.ScalingRounds }> {
  const { params } = run;
  const main = params.partitions;
  if (params.vsPartitions === null) {
    return { produce: await produceRound(run, await createTopic(run, main), main, params, new LatencyRecorder()) };
  }
  const into: scaling.ProduceInto = (...args) => produceRound(run, ...args);
  const scaled = await scaling.measureScaling((n) => createTopic(run, n), into, [main, params.vsPartitions], params);
  await run.clients[0]!.deleteTopic(scaled.vs.topic).catch(() => undefined);
  return { produce: scaled.main, scaled };
}

async function createTopic(run: PhaseRun, partitions: number): Promise<string> {
  const topic = benchTopicName('bench-tput');
  await run.clients[0]!.createTopic(topic, partitions);
  return topic;
}

/** Produces `records` (or for `durationMs`) into an existing topic, timed. */
async function produceRound(
  run: PhaseRun,
  topic: string,
  partitions: number,
  { records, durationMs }: scaling.RoundShare,
  latency: LatencyRecorder,
): Promise<scaling.ProduceTiming> {
  const { target, clients, params, batch } = run;
  const { batchSize, ratePerSec } = params;
  const totalBatches = records === null ? undefined : Math.ceil(records / batchSize);
  const lastBatchSize = records === null ? batchSize : records - (totalBatches! - 1) * batchSize;
  const intervalMs = ratePerSec === null ? undefined : (batchSize * 1000) / ratePerSec;
  const into = `into ${partitions} partitions`;
  run.progress(records === null ? `producing for ${durationMs} ms ${into}` : `producing ${records} records ${into}`);
  const before = await meter(target, true);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const deadline = durationMs === null ? undefined : started + durationMs;
  const window = { batches: totalBatches, lastBatchSize, deadline, inFlight: params.inFlight, intervalMs };
  const sent = await produceWindow(clients, topic, batch, params.codec, window, latency, (n) =>
    run.progress(`produced ${n} records`),
  );
  const ms = performance.now() - started;
  const clientCpuMs = cpuMs(process.cpuUsage(cpu));
  const after = await meter(target, false);
  return {
    topic,
    sent,
    ms,
    latency,
    peak: after.peak,
    fsyncs: diff(after.fsyncs, before.fsyncs),
    fsyncWindow: after.fsyncWindow,
    brokerCpuMs: diff(after.cpuMs, before.cpuMs),
    clientCpuMs,
  };
}

/** The timed fetch phase: every produced record read back with batched FETCHes. */
async function measureFetch(
  run: PhaseRun,
  topic: string,
  records: number,
): Promise<PhaseTiming & { records: number; requests: number }> {
  run.progress(`fetching ${records} records`);
  const latency = new LatencyRecorder();
  const before = await meter(run.target, true);
  const cpu = process.cpuUsage();
  const fetched = await fetchAll(run.target, topic, records, run.params, latency);
  const clientCpuMs = cpuMs(process.cpuUsage(cpu));
  const after = await meter(run.target, false);
  const brokerCpuMs = diff(after.cpuMs, before.cpuMs);
  return { ...fetched, latency, peak: after.peak, fsyncs: null, fsyncWindow: null, brokerCpuMs, clientCpuMs };
}

interface Window {
  /** Batches to send in all; undefined: until the deadline. */
  batches: number | undefined;
  lastBatchSize?: number;
  deadline?: number | undefined;
  inFlight: number;
  intervalMs: number | undefined;
}

/**
 * Batches are numbered globally and claimed by whichever slot (connection × in-flight) is free; batch i is intended
 * at start + i × interval on a schedule, otherwise at the moment its slot freed.
 */
async function produceWindow(
  clients: readonly Client[],
  topic: string,
  batch: readonly ProducerRecord[],
  codec: BenchCodec,
  window: Window,
  latency: LatencyRecorder,
  onProgress: (records: number) => void,
): Promise<{ records: number; batches: number }> {
  const start = performance.now();
  const last =
    window.lastBatchSize === undefined || window.lastBatchSize === batch.length
      ? batch
      : batch.slice(0, window.lastBatchSize);
  let next = 0;
  let records = 0;
  let lastReport = start;
  const claim = (): number | undefined => {
    if (window.batches !== undefined ? next >= window.batches : performance.now() >= window.deadline!) return undefined;
    return next++;
  };
  const recordsOf = (i: number) => (window.batches !== undefined && i === window.batches - 1 ? last : batch);
  const slot = async (client: Client): Promise<void> => {
    // Each batch is encoded when it is sent, not ahead while the previous one is in flight (Backend.prepareBatch):
    // encoding ahead costs a second copy of the entries, and measured more client CPU per record (README).
    for (let i = claim(); i !== undefined; i = claim()) {
      let intended = performance.now();
      if (window.intervalMs !== undefined) {
        intended = start + i * window.intervalMs;
        const wait = intended - performance.now();
        if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      }
      const sent = recordsOf(i);
      const result = await client.produceBatch(topic, sent, { codec });
      if (result.error) throw result.error;
      const now = performance.now();
      latency.record(now - intended);
      records += sent.length;
      if (now - lastReport > 250) {
        lastReport = now;
        onProgress(records);
      }
    }
  };
  const slots: Promise<void>[] = [];
  for (const client of clients) for (let s = 0; s < window.inFlight; s++) slots.push(slot(client));
  await Promise.all(slots);
  return { records, batches: next };
}

/**
 * FETCH on a connection of its own (FETCH binds a connection to its group) with a fresh group until `expected`
 * records came back, with `fetchInFlight` FETCHes pipelined on it (the broker answers them in order, each from where
 * the previous one left the cursor); a run of empty replies before that is an error. `ms` runs from the first FETCH to
 * the last reply: connecting, a Kafka member's group join (joinFetchGroup) and closing are not timed, as Kafka's
 * ConsumerPerformance leaves its join out of fetch.time.ms.
 */
async function fetchAll(
  target: BenchTarget,
  topic: string,
  expected: number,
  params: Pick<ThroughputParams, 'fetchSize' | 'fetchInFlight' | 'fetchDecode'>,
  latency: LatencyRecorder,
): Promise<{ records: number; requests: number; ms: number }> {
  const client = await target.connect();
  try {
    const group = benchTopicName('bench-group');
    await client.joinFetchGroup?.(topic, group);
    let records = 0;
    let requests = 0;
    let empty = 0;
    const options = { maxRecords: params.fetchSize, table: params.fetchDecode === 'table' };
    const loop = async (): Promise<void> => {
      while (records < expected) {
        const t0 = performance.now();
        const result = await client.fetch(topic, group, options);
        latency.record(performance.now() - t0);
        requests++;
        const got = result.table ? result.table.length : result.records.length;
        records += got;
        if (got === 0 && ++empty > 50 * params.fetchInFlight)
          throw new Error(`fetch stalled at ${records} of ${expected} records`);
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: params.fetchInFlight }, loop));
    const ms = performance.now() - started;
    return { records, requests, ms };
  } finally {
    await client.close();
  }
}
