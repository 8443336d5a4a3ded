/**
 * The loops behind `crater consume`. Pull mode repeats FETCH on one connection; the broker commits each partition
 * past what it sent, so a record that arrived but was not printed (past --max-records, or after the reader of
 * stdout went away) is handed back by committing its own offset, the next record to read for the group. Push mode
 * (--follow) reads a SUBSCRIBE stream, which the broker commits after flushing.
 *
 * End of partition (-e): the end offsets are LIST_OFFSETS `latest` at start. After every FETCH that returned
 * records, DESCRIBE_GROUP shows where the broker committed the group (the first record not yet handed out); a
 * partition is at its end when that reaches its start-time end, or when it was empty at start. A FETCH that returns
 * nothing means every partition is at its end. This works for both backends, whose offsets are opaque cursors
 * (byte positions on segmented topics, record counts on commitlog topics).
 */
import type { Backend as Client } from '../client/backend.js';
import type { FetchedRecord, IsolationName } from '../client/index.js';
import { abortableDelay } from './connect.js';

export type StopCause = 'count' | 'end' | 'idle' | 'interrupted' | 'output-closed' | 'stream-ended';

export interface ConsumeLoopOptions {
  topic: string;
  group: string;
  maxRecords?: number | undefined;
  exitAtEnd: boolean;
  idleTimeoutMs?: number | undefined;
  isolation?: IsolationName | undefined;
  timeoutMs: number;
}

/** Prints one record; false when the output has gone and consumption should stop. */
export type Emit = (record: FetchedRecord) => Promise<boolean>;

export interface ConsumeOutcome {
  count: number;
  cause: StopCause;
}

/** Records per FETCH when no smaller remainder is asked for. */
export const FETCH_CHUNK = 500;
/** Wait between FETCHes that came back empty. */
export const EMPTY_POLL_MS = 100;

export async function consumePull(client: Client, o: ConsumeLoopOptions, emit: Emit, signal: AbortSignal): Promise<ConsumeOutcome> {
  const ends = o.exitAtEnd ? await endOffsets(client, o.topic, o.isolation === 'read_committed') : undefined;
  let count = 0;
  let lastRecordAt = performance.now();
  for (;;) {
    if (signal.aborted) return { count, cause: signal.reason === 'stdout-closed' ? 'output-closed' : 'interrupted' };
    const want = o.maxRecords === undefined ? FETCH_CHUNK : Math.min(o.maxRecords - count, FETCH_CHUNK);
    const { records } = await client.fetch(o.topic, o.group, {
      maxRecords: want,
      headers: client.isCrater,
      isolation: o.isolation,
      timeoutMs: o.timeoutMs,
    });
    const handBack = new Map<number, bigint>();
    let outputClosed = false;
    for (const r of records) {
      const full = o.maxRecords !== undefined && count >= o.maxRecords;
      if (full || outputClosed || !(await emit(r))) {
        outputClosed ||= !full;
        if (!handBack.has(r.partition)) handBack.set(r.partition, r.offset);
        continue;
      }
      count += 1;
    }
    for (const [partition, offset] of handBack) await client.commit(o.topic, partition, offset);
    if (outputClosed) return { count, cause: 'output-closed' };
    if (o.maxRecords !== undefined && count >= o.maxRecords) return { count, cause: 'count' };
    if (records.length > 0) {
      lastRecordAt = performance.now();
      if (ends && (await allAtEnd(client, o.group, o.topic, ends))) return { count, cause: 'end' };
      continue;
    }
    if (ends) return { count, cause: 'end' };
    const idleLeft = o.idleTimeoutMs === undefined ? Infinity : o.idleTimeoutMs - (performance.now() - lastRecordAt);
    if (idleLeft <= 0) return { count, cause: 'idle' };
    await abortableDelay(Math.min(EMPTY_POLL_MS, idleLeft), signal);
  }
}

/**
 * Partition → the end offset to reach: the high watermark, the end of what the broker serves (null when the
 * partition was empty at start and needs no reading). A read_committed reader cannot pass the LSO (an open
 * transaction's first offset), so its end is the LSO.
 */
async function endOffsets(client: Client, topic: string, readCommitted: boolean): Promise<Map<number, bigint | null>> {
  const { partitions } = await client.listOffsets(topic);
  return new Map(
    partitions.map((p) => {
      const end = readCommitted ? p.lso : p.highWatermark;
      return [p.partition, end <= p.earliest ? null : end];
    }),
  );
}

async function allAtEnd(client: Client, group: string, topic: string, ends: Map<number, bigint | null>): Promise<boolean> {
  const { offsets } = await client.describeGroup(group);
  const committed = new Map(offsets.filter((c) => c.topic === topic).map((c) => [c.partition, c.offset]));
  for (const [partition, end] of ends) {
    if (end === null) continue;
    const at = committed.get(partition);
    if (at === undefined || at < end) return false;
  }
  return true;
}

/** SUBSCRIBE push: the broker streams records as they land; stops at the count, the idle timeout or a signal. */
export async function consumePush(client: Client, o: ConsumeLoopOptions, emit: Emit, signal: AbortSignal): Promise<ConsumeOutcome> {
  const sub = client.subscribe(o.topic, o.group, { isolation: o.isolation });
  const it = sub[Symbol.asyncIterator]();
  let count = 0;
  const stopped = new Promise<'signal'>((resolve) => {
    if (signal.aborted) resolve('signal');
    signal.addEventListener('abort', () => resolve('signal'), { once: true });
  });
  try {
    await Promise.race([sub.ready(), stopped]);
    for (;;) {
      if (signal.aborted) return { count, cause: signal.reason === 'stdout-closed' ? 'output-closed' : 'interrupted' };
      let timer: NodeJS.Timeout | undefined;
      const idle =
        o.idleTimeoutMs === undefined
          ? new Promise<never>(() => {})
          : new Promise<'idle'>((resolve) => (timer = setTimeout(() => resolve('idle'), o.idleTimeoutMs)));
      const next = await Promise.race([it.next(), idle, stopped]).finally(() => clearTimeout(timer));
      if (next === 'idle') return { count, cause: 'idle' };
      if (next === 'signal') continue;
      if (next.done) return { count, cause: 'stream-ended' };
      if (!(await emit(next.value))) return { count, cause: 'output-closed' };
      count += 1;
      if (o.maxRecords !== undefined && count >= o.maxRecords) return { count, cause: 'count' };
    }
  } finally {
    await sub.close();
  }
}

/**
 * `--from beginning` for a named group: COMMIT needs a connection that has fetched, so a throwaway connection
 * FETCHes once (what it receives is dropped), commits each partition's earliest offset, and closes; the consuming
 * connection then starts from there. A member of the group that is still connected keeps its own position.
 */
export async function rewindGroup(open: () => Promise<Client>, topic: string, group: string, timeoutMs: number): Promise<void> {
  const side = await open();
  try {
    await side.fetch(topic, group, { maxRecords: 1, timeoutMs });
    const { partitions } = await side.listOffsets(topic);
    for (const p of partitions) await side.commit(topic, p.partition, p.earliest);
  } finally {
    await side.close();
  }
}
