/**
 * `crater consume --exec`: the batch consumer (client.batchConsumer) with CMD as its handler (exec-batch.ts),
 * stopped by SIGINT (the running batch finishes and is committed; exit 130) or by --idle-timeout. Flag parsers for
 * the policy flags live here too, so the command only maps flags to options.
 */
import type { Backend as Client } from '../client/backend.js';
import type { Backoff, BackendBatchConsumer, BatchItem, MessageBatch, ProducerRecord } from '../client/index.js';
import { UsageError } from '../errors.js';
import { execBatch, type ExecSpec } from './exec-batch.js';
import { parseTimeoutMs } from './flags.js';
import type { EnvelopeEncoding } from './render/envelope.js';
import { createSpinner, type Spinner } from './terminal.js';

export interface ExecConsumeOptions {
  topics: string[];
  group: string;
  command: string;
  batchSize: number;
  batchTimeoutMs: number;
  retries: number;
  backoff: Backoff;
  onExhausted: 'dead-letter' | 'discard';
  workers: number;
  rate?: { permitsPerSecond: number; burst: number } | undefined;
  breaker?: { failureThreshold: number; samplingWindowMs: number; pauseMs: number } | undefined;
  filters: Array<(item: BatchItem<Buffer>) => boolean>;
  transactional: boolean;
  encoding: EnvelopeEncoding;
  idleTimeoutMs?: number | undefined;
  commitIntervalMs: number;
  isolation?: 'read_committed' | 'read_uncommitted' | undefined;
  /** Stop once this many records went into batches (whole batches: it may be a few more); for the bench. */
  stopAfter?: number | undefined;
  /** A progress line on a TTY (default true). */
  progress?: boolean | undefined;
}

export interface ExecSummary {
  topics: string[];
  group: string;
  batches: number;
  records: number;
  processed: number;
  filtered: number;
  retries: number;
  deadLettered: number;
  discarded: number;
  produced: number;
  elapsedMs: number;
  recordsPerSecond: number;
  stoppedBy: 'idle' | 'interrupt';
}

/** "500/s", "30000/m" or "500" (per second) → permits per second. */
export function parseRate(input: string): number {
  const m = /^(\d+(?:\.\d+)?)(?:\/(s|m))?$/.exec(input.trim());
  const rate = m ? Number(m[1]) / (m[2] === 'm' ? 60 : 1) : NaN;
  if (!(rate > 0)) throw new UsageError(`invalid --rate "${input}": expected N/s, N/m or N (> 0)`);
  return rate;
}

/** "5/30s": open after 5 failed batches within 30 s. */
export function parseBreaker(input: string): { failureThreshold: number; samplingWindowMs: number } {
  const m = /^(\d+)\/(.+)$/.exec(input.trim());
  const failureThreshold = m ? Number(m[1]) : NaN;
  if (!m || !(failureThreshold >= 1))
    throw new UsageError(`invalid --breaker "${input}": expected FAILURES/WINDOW, e.g. 5/30s`);
  return { failureThreshold, samplingWindowMs: parseTimeoutMs(m[2]!) };
}

/** "200ms:5s" exponential with jitter between the two; "500ms" fixed. */
export function parseBackoff(input: string): Backoff {
  const parts = input.split(':');
  if (parts.length === 1) return { type: 'fixed', delayMs: parseTimeoutMs(parts[0]!) };
  if (parts.length !== 2)
    throw new UsageError(`invalid --backoff "${input}": expected DELAY or MIN:MAX, e.g. 200ms:5s`);
  const [initialMs, maxMs] = [parseTimeoutMs(parts[0]!), parseTimeoutMs(parts[1]!)];
  if (maxMs < initialMs) throw new UsageError(`invalid --backoff "${input}": MAX is below MIN`);
  return { type: 'exponential', initialMs, maxMs, jitter: true };
}

/**
 * `FIELD~REGEX` keeps records whose FIELD matches, `FIELD!~REGEX` drops them; FIELD is key, value or header.NAME
 * (its first value), read as UTF-8. Repeated filters must all keep a record.
 */
export function parseFilter(input: string): (item: BatchItem<Buffer>) => boolean {
  const m = /^(key|value|header\.[^!~]+)(!?~)(.*)$/s.exec(input);
  if (!m) throw new UsageError(`invalid --filter "${input}": expected key~REGEX, value!~REGEX or header.NAME~REGEX`);
  let re: RegExp;
  try {
    re = new RegExp(m[3]!);
  } catch (error) {
    throw new UsageError(`invalid --filter "${input}": ${(error as Error).message}`);
  }
  const field = m[1]!;
  const keep = m[2] === '~';
  const header = field.startsWith('header.') ? field.slice('header.'.length) : undefined;
  return (item) => {
    const t = item.transport;
    const bytes =
      header !== undefined ? t.headers.find((h) => h.name === header)?.value : field === 'key' ? t.key : t.value;
    const matched = bytes !== undefined && re.test(bytes.toString('utf8'));
    return matched === keep;
  };
}

async function produceAll(
  client: Client,
  batchTxn: { sendBatch: Client['produceBatch'] } | undefined,
  produce: Array<{ topic: string; record: ProducerRecord }>,
): Promise<void> {
  const byTopic = new Map<string, ProducerRecord[]>();
  for (const p of produce) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.record]);
  for (const [topic, records] of byTopic) {
    const result = batchTxn ? await batchTxn.sendBatch(topic, records) : await client.produceBatch(topic, records);
    if (result.error) throw result.error;
  }
}

export interface ExecHooks {
  passThrough(line: string): Promise<unknown> | undefined;
  diag(text: string): void;
}

function batchOptions(o: ExecConsumeOptions) {
  return {
    group: o.group,
    topics: o.topics,
    maxSize: o.batchSize,
    timeoutMs: o.batchTimeoutMs,
    workers: o.workers,
    filters: o.filters,
    retry: { attempts: o.retries, backoff: o.backoff, onExhausted: o.onExhausted },
    rateLimit: o.rate,
    circuitBreaker: o.breaker,
    transactional: o.transactional,
    commitIntervalMs: o.commitIntervalMs,
    isolation: o.isolation,
    fetchMaxRecords: Math.min(10_000, Math.max(o.batchSize, 500)),
  };
}

type ExecConsumer = BackendBatchConsumer<Buffer>;

/** Every 100 ms: the TTY progress line, and the stop once nothing arrived for --idle-timeout. */
function startTicker(bc: ExecConsumer, o: ExecConsumeOptions, started: number, spinner: Spinner | undefined) {
  let lastRecords = -1;
  let lastChange = performance.now();
  return setInterval(() => {
    const s = bc.stats;
    const now = performance.now();
    if (s.records !== lastRecords || bc.inFlight > 0) [lastRecords, lastChange] = [s.records, now];
    else if (o.idleTimeoutMs !== undefined && now - lastChange >= o.idleTimeoutMs) void bc.stop();
    const rate = Math.round(s.processed / Math.max(0.001, (now - started) / 1000));
    if (spinner)
      spinner.text = `${s.batches} batches · ${s.records} records (${rate}/s) · ${s.retries} retries · ${s.deadLettered} dead-lettered`;
  }, 100);
}

/** The batch handler: CMD over the batch, then what it asked to produce; counts the produced records. */
function execHandler(
  client: Client,
  bc: ExecConsumer,
  o: ExecConsumeOptions,
  hooks: ExecHooks,
  counts: { produced: number },
) {
  const baseEnv = { ...process.env, CRATER_TOPICS: o.topics.join(','), CRATER_GROUP: o.group };
  const withHeaders = client.supportsHeaders;
  return async (batch: MessageBatch<Buffer>) => {
    const spec: ExecSpec = {
      command: o.command,
      encoding: o.encoding,
      passThrough: (line) => hooks.passThrough(line),
      env: {
        ...baseEnv,
        CRATER_BATCH_SIZE: String(batch.count),
        CRATER_RETRY_ATTEMPT: String(batch.retryAttempt),
        CRATER_WORKER: String(batch.worker),
      },
    };
    const result = await execBatch(spec, batch.items, o.topics, withHeaders);
    await produceAll(client, batch.transaction, result.produce);
    counts.produced += result.produce.length;
    if (o.stopAfter !== undefined && bc.stats.records >= o.stopAfter) void bc.stop();
    return result.outcomes;
  };
}

export async function runExecConsume(
  client: Client,
  o: ExecConsumeOptions,
  signal: AbortSignal,
  hooks: ExecHooks,
): Promise<ExecSummary> {
  const started = performance.now();
  const counts = { produced: 0 };
  let stoppedBy: ExecSummary['stoppedBy'] = 'idle';
  const bc = client.batchConsumer(batchOptions(o));
  const spinner = o.progress === false ? undefined : await createSpinner('starting');
  const onAbort = (): void => {
    stoppedBy = 'interrupt';
    void bc.stop();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  const ticker = startTicker(bc, o, started, spinner);
  spinner?.start();
  try {
    await bc.run(execHandler(client, bc, o, hooks, counts));
  } finally {
    clearInterval(ticker);
    spinner?.stop();
    signal.removeEventListener('abort', onAbort);
  }
  const elapsedMs = performance.now() - started;
  const s = bc.stats;
  return {
    topics: o.topics,
    group: o.group,
    batches: s.batches,
    records: s.records,
    processed: s.processed,
    filtered: s.filtered,
    retries: s.retries,
    deadLettered: s.deadLettered,
    discarded: s.discarded,
    produced: counts.produced,
    elapsedMs: Math.round(elapsedMs),
    recordsPerSecond: Math.round((s.records / elapsedMs) * 1000),
    stoppedBy,
  };
}
