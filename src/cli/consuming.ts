/**
 * The loops behind `crater consume`. Pull mode repeats FETCH on one connection; the broker commits each partition
 * past what it sent, so a record that arrived but was not printed (past --max-records, or after the reader of
 * stdout went away) is handed back by committing its own offset, the next record to read for the group. Push mode
 * (--follow) reads a SUBSCRIBE stream, which the broker commits after flushing.
 *
 * End of partition (-e): the end offsets are LIST_OFFSETS `latest` at start. A partition is at its end when the
 * group's cursor (the first record not yet handed out) reaches its start-time end, or when it was empty at start: a
 * fetched record at or past the end shows it, and otherwise DESCRIBE_GROUP does, asked only once the FETCHes come
 * near the end (EndWatch). A FETCH that returns nothing means every partition is at its end. This works for both
 * backends, whose offsets are opaque cursors (byte positions on segmented topics, record counts on commitlog topics).
 */
import type { Backend as Client } from '../client/backend.js';
import type { FetchedRecord, IsolationName } from '../client/index.js';
import { abortableDelay } from './connect.js';
import {
  type FetchedRows,
  NO_ROWS,
  offsetAt,
  partitionAt,
  pickRows,
  recordAt,
  sizeAt,
  sliceRows,
  topicAt,
} from './fetched-rows.js';
import { OutputWindow } from './output-window.js';

export type StopCause = 'count' | 'end' | 'idle' | 'interrupted' | 'output-closed' | 'stream-ended';

export interface ConsumeLoopOptions {
  /** One or more topics; pull mode reads them all on one connection, push mode the first. */
  topics: readonly string[];
  group: string;
  /** Only these 1-based partitions are printed (throwaway groups only: the others are dropped, not handed back). */
  partitions?: readonly number[] | undefined;
  maxRecords?: number | undefined;
  exitAtEnd: boolean;
  idleTimeoutMs?: number | undefined;
  isolation?: IsolationName | undefined;
  timeoutMs: number;
  /** Records per FETCH (pull mode); FETCH_CHUNK when not given. */
  fetchChunk?: number | undefined;
}

/** Prints one record; the bytes written, or undefined when the output has gone and consumption should stop. */
export type Emit = (record: FetchedRecord) => Promise<number | undefined>;

/**
 * Prints a FETCH's records in one write: the bytes of each, or undefined when the output has gone (then none of
 * them counts as written). One write per FETCH instead of one per record is most of what `consume --json` costs.
 */
export interface BatchEmit {
  batch(records: FetchedRows): Promise<number[] | undefined>;
}

/** How the loops print: a record at a time, or (pull mode) a FETCH at a time. */
export type Output = Emit | BatchEmit;

function single(output: Output): Emit {
  if (typeof output === 'function') return output;
  return async (r) => (await output.batch([r]))?.[0];
}

export interface ConsumeOutcome {
  count: number;
  cause: StopCause;
}

/** Records per FETCH when no smaller remainder is asked for. */
export const FETCH_CHUNK = 2_000;
/**
 * Records per FETCH for `consume --json`, which writes a FETCH at a time: each FETCH costs a request write (some
 * 1.5 ms of CPU on this loopback), a DESCRIBE-or-not check and a stdout write, and 10,000 instead of 2,000 cut the
 * 1M-record `consume -e --json` from 2758 to 2381 ms of CPU (median of 4 ABBA rounds).
 */
export const JSON_FETCH_CHUNK = 10_000;
/** Wait between FETCHes that came back empty. */
export const EMPTY_POLL_MS = 100;

type Ends = Map<string, Map<number, bigint | null>>;

function wanted(o: ConsumeLoopOptions, partition: number): boolean {
  return o.partitions === undefined || o.partitions.includes(partition);
}

/** Commits each (topic, partition) back to the offset given, so those records are read again. */
async function commitBack(client: Client, back: Map<string, Map<number, bigint>>): Promise<void> {
  for (const [topic, byPartition] of back)
    for (const [partition, offset] of byPartition) await client.commit(topic, partition, offset);
}

interface Written {
  /** What did not get written (past the count, output gone). */
  unwritten: FetchedRows;
  closed: boolean;
}

/** One FETCH's records written out a record at a time. */
async function writeOut(
  rows: FetchedRows,
  o: ConsumeLoopOptions,
  output: Output,
  window: OutputWindow,
  count: { n: number },
): Promise<Written> {
  if (typeof output !== 'function') return writeBatch(rows, o, output, window, count);
  const unwritten: FetchedRecord[] = [];
  let closed = false;
  for (let i = 0; i < rows.length; i++) {
    const r = recordAt(rows, i);
    if (!wanted(o, r.partition)) continue;
    const full = o.maxRecords !== undefined && count.n >= o.maxRecords;
    const bytes = full || closed ? undefined : await output(r);
    if (bytes === undefined) {
      closed ||= !full;
      unwritten.push(r);
      continue;
    }
    window.wrote(r, bytes);
    count.n += 1;
  }
  return { unwritten, closed };
}

/** writeOut with one write for the whole FETCH. */
async function writeBatch(
  rows: FetchedRows,
  o: ConsumeLoopOptions,
  output: BatchEmit,
  window: OutputWindow,
  count: { n: number },
): Promise<Written> {
  let chosen = rows;
  if (o.partitions !== undefined) {
    const keep: number[] = [];
    for (let i = 0; i < rows.length; i++) if (wanted(o, partitionAt(rows, i))) keep.push(i);
    chosen = pickRows(rows, keep);
  }
  const room = o.maxRecords === undefined ? chosen.length : Math.max(0, o.maxRecords - count.n);
  const toWrite = chosen.length <= room ? chosen : sliceRows(chosen, 0, room);
  const past = chosen.length <= room ? NO_ROWS : sliceRows(chosen, room);
  const bytes = toWrite.length === 0 ? [] : await output.batch(toWrite);
  if (bytes === undefined) return { unwritten: chosen, closed: true };
  window.wroteAll(toWrite, bytes);
  count.n += toWrite.length;
  return { unwritten: past, closed: false };
}

/** One FETCH's records: a FetchTable when `table` (and the backend gives one), else the records. */
async function fetchRows(client: Client, o: ConsumeLoopOptions, topic: string, want: number, table: boolean) {
  const result = await client.fetch(topic, o.group, {
    maxRecords: want,
    headers: client.isCrater,
    isolation: o.isolation,
    timeoutMs: o.timeoutMs,
    table,
  });
  return result.table ?? result.records;
}

/** The FETCH asked for ahead of the one being written out, if any. */
class FetchAhead {
  #next: Promise<FetchedRows> | undefined;

  constructor(private readonly fetchFor: (poll: number, want: number) => Promise<FetchedRows>) {}

  get pending(): boolean {
    return this.#next !== undefined;
  }

  /** The FETCH ahead's records, or (none ahead) a FETCH's now. */
  take(poll: number, want: number): Promise<FetchedRows> {
    const next = this.#next ?? this.fetchFor(poll, want);
    this.#next = undefined;
    return next;
  }

  ask(poll: number, want: number): void {
    this.#next = this.fetchFor(poll, want);
    // Awaited by take() or drain(); a failure seen only if it is.
    this.#next.catch(() => {});
  }

  /** What the FETCH ahead brought (nothing when none is ahead). */
  drain(): Promise<FetchedRows> {
    const next = this.#next;
    this.#next = undefined;
    return next ?? Promise.resolve(NO_ROWS);
  }
}

/**
 * FETCH after FETCH on one connection. While one FETCH's records are written out, the next is already asked for (the
 * broker answers in order, each from where the previous left the cursor), so the broker's read and this process's
 * rendering overlap instead of taking turns. The broker commits past what it sends: whatever the FETCH ahead brought
 * and was not printed when the loop stops is handed back with the rest (one commit per partition, the earliest).
 */
export async function consumePull(
  client: Client,
  o: ConsumeLoopOptions,
  emit: Output,
  signal: AbortSignal,
): Promise<ConsumeOutcome> {
  const ends = o.exitAtEnd ? new EndWatch(await endOffsets(client, o, o.isolation === 'read_committed')) : undefined;
  const window = new OutputWindow();
  const count = { n: 0 };
  const table = typeof emit !== 'function';
  const ahead = new FetchAhead((poll, want) => fetchRows(client, o, o.topics[poll % o.topics.length]!, want, table));
  let current: FetchedRows = NO_ROWS;
  const stop = async (cause: StopCause, unwritten: FetchedRows = NO_ROWS, closed = false) => {
    const pending = await ahead.drain();
    if (closed || unwritten.length > 0 || pending.length > 0)
      await commitBack(client, (closed ? window : new OutputWindow(0)).handBack(unwritten, pending));
    return { count: count.n, cause };
  };
  const loop = async (): Promise<ConsumeOutcome> => {
    let lastRecordAt = performance.now();
    let ending = false;
    for (let poll = 0; ; poll++) {
      if (signal.aborted) return stop(signal.reason === 'stdout-closed' ? 'output-closed' : 'interrupted');
      const rows = (current = await ahead.take(poll, wantNow(o, count.n, 0)));
      const next = wantNow(o, count.n, rows.length);
      const firstPass = poll < o.topics.length - 1;
      if (rows.length > 0 && next > 0 && !firstPass && !ending) ahead.ask(poll + 1, next);
      const { unwritten, closed } = await writeOut(rows, o, emit, window, count);
      current = NO_ROWS;
      if (closed) return stop('output-closed', unwritten, true);
      if (unwritten.length > 0 || (o.maxRecords !== undefined && count.n >= o.maxRecords))
        return stop('count', unwritten);
      if (ending) return stop('end');
      if (rows.length > 0 || firstPass) {
        if (rows.length > 0) lastRecordAt = performance.now();
        // At the end: what the FETCH ahead brought is written out before stopping.
        if (ends && !firstPass && (await ends.reached(client, o.group, rows))) ending = true;
        if (ending && !ahead.pending) return stop('end');
        continue;
      }
      if (ends) return stop('end');
      const idleLeft = o.idleTimeoutMs === undefined ? Infinity : o.idleTimeoutMs - (performance.now() - lastRecordAt);
      if (idleLeft <= 0) return stop('idle');
      await abortableDelay(Math.min(EMPTY_POLL_MS, idleLeft), signal);
    }
  };
  return loop().catch(async (error: unknown) => {
    // Writing failed (or a FETCH): hand back what may not have been printed, then fail.
    const pending = await ahead.drain().catch(() => NO_ROWS);
    await commitBack(client, window.handBack(current, pending)).catch(() => {});
    throw error;
  });
}

/** Records to ask for next, `taken` of them already fetched and not counted yet. */
function wantNow(o: ConsumeLoopOptions, counted: number, taken: number): number {
  const chunk = o.fetchChunk ?? FETCH_CHUNK;
  return o.maxRecords === undefined ? chunk : Math.min(o.maxRecords - counted - taken, chunk);
}

/**
 * Topic → partition → the end offset to reach (null when the partition was empty at start, or is not one of the
 * chosen partitions, and needs no reading). A read_committed reader cannot pass the LSO (an open transaction's
 * first offset), so its end is the LSO.
 */
async function endOffsets(client: Client, o: ConsumeLoopOptions, readCommitted: boolean): Promise<Ends> {
  const ends: Ends = new Map();
  for (const topic of o.topics) {
    const { partitions } = await client.listOffsets(topic);
    const byPartition = new Map<number, bigint | null>();
    for (const p of partitions) {
      const end = readCommitted ? p.lso : p.highWatermark;
      const chosen = o.partitions === undefined || o.partitions.includes(p.partition);
      byPartition.set(p.partition, !chosen || end <= p.earliest ? null : end);
    }
    ends.set(topic, byPartition);
  }
  return ends;
}

/**
 * Bytes a stored record may take beyond its key, value and headers, and room for transaction markers between two
 * records. It only decides when DESCRIBE_GROUP is worth asking, never what the answer is.
 */
const RECORD_SLACK_BYTES = 4096;

/** How far past record i's offset the group's cursor can be after a FETCH that ended with it (generously). */
function reachAfter(rows: FetchedRows, i: number): bigint {
  return BigInt(RECORD_SLACK_BYTES + sizeAt(rows, i));
}

/**
 * Whether the group has reached every end offset. A partition is done once a fetched record sits at or past its end
 * (the cursor is beyond that record), or once DESCRIBE_GROUP shows the cursor there. DESCRIBE_GROUP is asked only
 * when every partition not yet done may be there: it returned nothing in this FETCH, or its last record lies within
 * one record's reach of the end. Before that the answer is certainly no, so a long read asks about once at its end
 * rather than after every FETCH. Asking too rarely cannot end a read early: it only waits for the next FETCH, which
 * either returns a record at or past the end or nothing (the end).
 */
class EndWatch {
  readonly #pending = new Map<string, { topic: string; partition: number; end: bigint }>();

  constructor(ends: Ends) {
    for (const [topic, byPartition] of ends)
      for (const [partition, end] of byPartition)
        if (end !== null) this.#pending.set(`${topic}\0${partition}`, { topic, partition, end });
  }

  async reached(client: Client, group: string, rows: FetchedRows): Promise<boolean> {
    const last = new Map<string, { offset: bigint; i: number }>();
    for (let i = 0; i < rows.length; i++) {
      const partition = partitionAt(rows, i);
      const topic = topicAt(rows, i);
      // Offsets grow within a partition: only the last record of each run of one partition can decide anything.
      while (i + 1 < rows.length && partitionAt(rows, i + 1) === partition && topicAt(rows, i + 1) === topic) i++;
      const key = `${topic}\0${partition}`;
      const p = this.#pending.get(key);
      if (p === undefined) continue;
      const offset = offsetAt(rows, i);
      if (offset >= p.end) this.#pending.delete(key);
      else last.set(key, { offset, i });
    }
    for (const [key, p] of this.#pending) {
      const r = last.get(key);
      if (r !== undefined && p.end - r.offset > reachAfter(rows, r.i)) return false;
    }
    if (this.#pending.size === 0) return true;
    const { offsets } = await client.describeGroup(group);
    for (const c of offsets) {
      const key = `${c.topic}\0${c.partition}`;
      const p = this.#pending.get(key);
      if (p !== undefined && c.offset >= p.end) this.#pending.delete(key);
    }
    return this.#pending.size === 0;
  }
}

/** SUBSCRIBE push: the broker streams records as they land; stops at the count, the idle timeout or a signal. */
export async function consumePush(
  client: Client,
  o: ConsumeLoopOptions,
  output: Output,
  signal: AbortSignal,
): Promise<ConsumeOutcome> {
  const emit = single(output);
  const sub = client.subscribe(o.topics[0]!, o.group, { isolation: o.isolation });
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
      if ((await emit(next.value)) === undefined) return { count, cause: 'output-closed' };
      count += 1;
      if (o.maxRecords !== undefined && count >= o.maxRecords) return { count, cause: 'count' };
    }
  } finally {
    await sub.close();
  }
}
