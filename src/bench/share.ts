/**
 * Share-group drain: produce a record count (untimed), then C share consumers of one group with implicit acks drain
 * it concurrently. The timed phase runs from the first poll to the last consumer's final commit, so every record is
 * acquired and its ACCEPT durable inside it. Reports aggregate records/s, each consumer's share, duplicates seen
 * (0 unless a lock expired mid-run) and, against the embedded broker, its peak RSS and fsyncs. Returns a report;
 * never prints. Needs a crater broker (share groups are a crater extension).
 */
import type { Client } from '../client/client.js';
import type { ShareConsumer } from '../client/moonmq/share-consumer.js';
import { UsageError } from '../errors.js';
import { perSecond } from './stats.js';
import { type BrokerInfo, type TargetOptions, benchRecords, benchTopicName, openTarget } from './target.js';

export interface ShareBenchOptions extends TargetOptions {
  records?: number;
  consumers?: number;
  partitions?: number;
  valueSize?: number;
  /** Records per SHARE_FETCH. */
  maxRecords?: number;
  /**
   * How long a SHARE_FETCH that finds nothing waits on the broker. Only polls at the end of the drain find nothing
   * (the last records are already held by other members), and the timed phase waits for them, so this is kept short.
   */
  maxWaitMs?: number;
  onProgress?: (step: string) => void;
}

export interface ShareBenchReport {
  kind: 'share';
  broker: BrokerInfo;
  params: {
    records: number;
    consumers: number;
    partitions: number;
    valueSize: number;
    maxRecords: number;
    maxWaitMs: number;
    ackMode: 'implicit';
  };
  records: number;
  duplicates: number;
  polls: number;
  wallMs: number;
  /** From the first poll until every record had been delivered once; the rest of wallMs is the last commits. */
  allDeliveredMs: number;
  recordsPerSec: number;
  perConsumer: number[];
  brokerPeakRssBytes: number | null;
  fsyncs: number | null;
  /** CPU time of the timed phase, ms: this (client) process, and the embedded broker's (null for an external one). */
  clientCpuMs: number;
  brokerCpuMs: number | null;
}

export const ShareBenchDefaults = {
  records: 100_000,
  consumers: 4,
  partitions: 4,
  valueSize: 100,
  maxRecords: 1_000,
  maxWaitMs: 10,
} as const;
const PRODUCE_BATCH = 1_000;
const WARM_RECORDS = 20_000;

function positiveInt(name: string, v: number, max: number): number {
  if (!Number.isInteger(v) || v < 1 || v > max) throw new UsageError(`${name} must be an integer 1..${max}, got ${v}`);
  return v;
}

/** The options checked, defaults filled in. */
function paramsOf(options: ShareBenchOptions): { records: number } & Shape {
  const maxWaitMs = options.maxWaitMs ?? ShareBenchDefaults.maxWaitMs;
  if (!Number.isInteger(maxWaitMs) || maxWaitMs < 0 || maxWaitMs > 30_000)
    throw new UsageError(`max wait must be an integer 0..30000 ms, got ${maxWaitMs}`);
  return {
    records: positiveInt('records', options.records ?? ShareBenchDefaults.records, 100_000_000),
    consumers: positiveInt('consumers', options.consumers ?? ShareBenchDefaults.consumers, 64),
    partitions: positiveInt('partitions', options.partitions ?? ShareBenchDefaults.partitions, 1_024),
    valueSize: positiveInt('value size', options.valueSize ?? ShareBenchDefaults.valueSize, 1_000_000),
    maxRecords: positiveInt('max records', options.maxRecords ?? ShareBenchDefaults.maxRecords, 10_000),
    maxWaitMs,
  };
}

export async function runShareBench(options: ShareBenchOptions = {}): Promise<ShareBenchReport> {
  const { records, ...shape } = paramsOf(options);
  const progress = options.onProgress ?? (() => undefined);

  progress(options.broker ? `connecting to ${options.broker}` : 'starting the embedded broker');
  const target = await openTarget(options);
  let admin: Client | undefined;
  try {
    admin = await target.connectMoonmq('bench share');
    if (!admin.isCrater)
      throw new UsageError(
        `bench share needs a crater broker; ${target.info.address} is ${admin.serverName ?? 'unidentified'}`,
      );
    // One untimed pass first, so the figure is the JIT's steady state.
    progress('warming up');
    const warm = await drainOnce(admin, Math.min(WARM_RECORDS, records), shape, progress, async () => undefined);
    await admin.deleteTopic(warm.topic).catch(() => undefined);
    let before: Awaited<ReturnType<NonNullable<typeof target.embedded>['stats']>> | undefined;
    const run = await drainOnce(admin, records, shape, progress, async () => {
      before = target.embedded ? await target.embedded.resetPeak() : undefined;
    });
    // Read before the topic goes: a deleted topic's fsyncs leave the broker's count.
    const after = target.embedded ? await target.embedded.stats() : undefined;
    await admin.deleteTopic(run.topic).catch(() => undefined);
    return {
      kind: 'share',
      broker: target.info,
      params: { records, ...shape, ackMode: 'implicit' },
      records: run.records,
      duplicates: run.duplicates,
      polls: run.polls,
      wallMs: run.wallMs,
      allDeliveredMs: run.allDeliveredMs,
      perConsumer: run.perConsumer,
      clientCpuMs: run.clientCpuMs,
      recordsPerSec: perSecond(run.records, run.wallMs),
      brokerPeakRssBytes: after?.peakRssBytes ?? null,
      fsyncs: before && after ? after.fsyncCount - before.fsyncCount : null,
      brokerCpuMs: before && after ? after.cpuMs - before.cpuMs : null,
    };
  } finally {
    await admin?.close().catch(() => undefined);
    await target.close();
  }
}

interface Shape {
  consumers: number;
  partitions: number;
  valueSize: number;
  maxRecords: number;
  maxWaitMs: number;
}

/** `atStart` runs just before the timed phase (the broker's counters are read there). */
async function drainOnce(
  admin: Client,
  records: number,
  shape: Shape,
  progress: (step: string) => void,
  atStart: () => Promise<void>,
) {
  const topic = benchTopicName('bench-share');
  const group = `${topic}-group`;
  await admin.createTopic(topic, shape.partitions);
  progress(`producing ${records} records`);
  const batch = benchRecords({ count: PRODUCE_BATCH, valueSize: shape.valueSize });
  for (let sent = 0; sent < records; sent += PRODUCE_BATCH) {
    const n = Math.min(PRODUCE_BATCH, records - sent);
    const result = await admin.produceBatch(topic, n === PRODUCE_BATCH ? batch : batch.slice(0, n));
    if (result.error) throw result.error;
  }
  await admin.shareGroups.alter(group, { 'auto.offset.reset': 'earliest' });
  const members: ShareConsumer[] = [];
  try {
    for (let i = 0; i < shape.consumers; i++)
      members.push(
        await admin.shareConsumer({ group, topics: [topic], maxRecords: shape.maxRecords, maxWaitMs: shape.maxWaitMs }),
      );
    progress(`draining ${records} records with ${shape.consumers} share consumers`);
    await atStart();
    const cpu = process.cpuUsage();
    const started = performance.now();
    const { seen, distinct, perConsumer, polls, allDeliveredAt } = await drain(members, records);
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const { unique, duplicates } = tally(seen);
    if (unique !== distinct)
      throw new Error(`share bench: ${unique} distinct records seen but ${distinct} first deliveries counted`);
    return {
      topic,
      records: unique,
      duplicates,
      polls,
      wallMs,
      allDeliveredMs: allDeliveredAt - started,
      perConsumer,
      clientCpuMs: (used.user + used.system) / 1000,
    };
  } finally {
    await Promise.allSettled(members.map((m) => m.close()));
  }
}

/**
 * The timed loop: every member polls until `records` first deliveries arrived, then commits. Every offset is kept
 * (as a number, per partition) for tally() once the clock stopped, so the bookkeeping costs a push per record.
 */
async function drain(members: readonly ShareConsumer[], records: number) {
  const seen = new Map<number, number[]>();
  const perConsumer = members.map(() => 0);
  let distinct = 0;
  let allDeliveredAt = 0;
  let polls = 0;
  await Promise.all(
    members.map(async (m, i) => {
      while (distinct < records) {
        const got = await m.poll();
        polls++;
        let offsets: number[] | undefined;
        let partition = -1;
        for (const r of got) {
          if (r.partition !== partition) {
            partition = r.partition;
            offsets = seen.get(partition);
            if (!offsets) seen.set(partition, (offsets = []));
          }
          offsets!.push(Number(r.offset));
          if (r.deliveryCount === 1) distinct++;
        }
        perConsumer[i]! += got.length;
        if (distinct >= records && allDeliveredAt === 0) allDeliveredAt = performance.now();
      }
      await m.commit();
    }),
  );
  return { seen, distinct, perConsumer, polls, allDeliveredAt };
}

/** Distinct offsets and repeats over every partition's list. */
function tally(seen: ReadonlyMap<number, number[]>): { unique: number; duplicates: number } {
  let unique = 0;
  let duplicates = 0;
  for (const list of seen.values()) {
    const sorted = Float64Array.from(list).sort();
    for (let i = 0; i < sorted.length; i++) {
      if (i > 0 && sorted[i] === sorted[i - 1]) duplicates++;
      else unique++;
    }
  }
  return { unique, duplicates };
}
