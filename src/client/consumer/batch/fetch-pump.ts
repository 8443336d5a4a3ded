/**
 * The batch consumer's fetch side: one connection FETCHes every partition of the topics as the cursor group and
 * registers each reply's records, in fetch order, as pending entries of their partitions' watermarks, handing each
 * partition's run of records to the worker that owns the partition (the first time a partition is seen it goes to
 * the next worker in turn, so its records stay in order on one worker).
 *
 * FETCH_DEPTH fetches stay in flight, so the broker prepares the next reply while this process hands out the last
 * one. Replies come back in request order and a partition's records arrive in offset order across them, so
 * registering them in that order keeps each partition ordered. A FETCH is followed by a DESCRIBE_GROUP of the cursor
 * group when a commit is waiting for cursors (always when transactional: each batch commits its exact offsets): the
 * broker handles it right after that FETCH, so it shows each partition's offset just past everything delivered so
 * far. Fetching pauses while maxBuffered records are registered and unfinished, so a slow handler bounds memory.
 */
import type { FetchedRecord } from '../../../protocol/messages/fetch.js';
import type { BackendGroupFetcher } from '../../backend.js';
import type { WorkerChannel } from './accumulator.js';
import type { Pending } from './output.js';
import { partitionKey, type Watermarks } from './watermark.js';

/** FETCHes kept in flight on the fetch connection. */
const FETCH_DEPTH = 2;

type Cursors = ReadonlyArray<{ topic: string; partition: number; offset: bigint }>;

interface FetchReply {
  records: FetchedRecord[];
  cursors: Cursors | undefined;
  /** Commits waiting for this reply's cursors. */
  waiters: Array<() => void>;
}

export interface PumpSettings {
  topics: readonly string[];
  fetchMax: number;
  maxBuffered: number;
  /** Every FETCH carries a DESCRIBE_GROUP (each transactional batch commits its exact offsets). */
  alwaysCursors: boolean;
  idleWaitMs: number;
}

export class FetchPump {
  private wakeFetch: (() => void) | undefined;
  private readonly cursorWaiters: Array<() => void> = [];
  private readonly affinity = new Map<string, number>();

  constructor(
    private readonly s: PumpSettings,
    private readonly watermarks: Watermarks,
    private readonly channels: readonly WorkerChannel<Pending>[],
  ) {}

  /** Wakes a waiting fetch loop (a batch finished, a commit wants cursors, stop). */
  wake(): void {
    this.wakeFetch?.();
  }

  /** On stop: commits waiting for cursors go ahead without them. */
  releaseWaiters(): void {
    for (const w of this.cursorWaiters.splice(0)) w();
  }

  /** Resolves once a DESCRIBE_GROUP after the next FETCH has resolved the partitions' unknown tails. */
  refreshCursors(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.cursorWaiters.push(resolve);
      this.wakeFetch?.();
    });
  }

  /** Fetches until `signal` aborts; replies already on their way are registered (unfinished, not dispatched). */
  async run(fetcher: BackendGroupFetcher, signal: AbortSignal): Promise<void> {
    let issued = 0;
    const inFlight: Array<Promise<FetchReply>> = [];
    const issue = (): void => {
      const topic = this.s.topics[Math.min(issued++, this.s.topics.length - 1)]!;
      const waiters = this.cursorWaiters.splice(0);
      const withCursors = waiters.length > 0 || this.s.alwaysCursors;
      const reply = fetcher.fetch(topic, { maxRecords: this.s.fetchMax, withCursors });
      inFlight.push(reply.then((f) => ({ records: f.records, cursors: f.cursors, waiters })));
    };
    const take = async (dispatch: boolean): Promise<number> => {
      const reply = await inFlight.shift()!;
      this.register(reply.records, reply.cursors, dispatch);
      for (const w of reply.waiters) w();
      return reply.records.length;
    };
    try {
      while (!signal.aborted) {
        const room = this.watermarks.outstanding() < this.s.maxBuffered;
        while (inFlight.length < FETCH_DEPTH && (room || this.cursorWaiters.length > 0)) issue();
        if (inFlight.length === 0) {
          await this.wait(undefined, signal);
          continue;
        }
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the signal can abort during `take`; TypeScript keeps the narrowing across awaits (TypeScript#9998)
        if ((await take(!signal.aborted)) > 0 || signal.aborted) continue;
        // Caught up: take what is still in flight, then wait before polling again (unless that found records).
        let found = 0;
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the signal can abort during `take`; TypeScript keeps the narrowing across awaits (TypeScript#9998)
        while (inFlight.length > 0 && !signal.aborted) found += await take(true);
        if (found === 0 && issued >= this.s.topics.length) await this.wait(this.s.idleWaitMs, signal);
      }
    } finally {
      // Replies already on their way moved the cursor group past their records: register them (unfinished) so the
      // final commit stops before them.
      while (inFlight.length > 0) await take(false).catch(() => 0);
    }
  }

  /** Waits up to `ms` (or until woken). */
  private wait(ms: number | undefined, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.wakeFetch = undefined;
        resolve();
      };
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      this.wakeFetch = done;
    });
  }

  /**
   * One pending entry per record, registered with its partition's watermark; a partition's records arrive as one
   * run per reply, so the watermark and the worker are looked up once per run.
   */
  private register(records: readonly FetchedRecord[], cursors: Cursors | undefined, dispatch: boolean): void {
    let i = 0;
    while (i < records.length) {
      const first = records[i]!;
      const mark = this.watermarks.of(first.topic, first.partition);
      const into = dispatch ? this.channels[this.workerFor(first.topic, first.partition)]! : undefined;
      let j = i + 1;
      while (j < records.length && records[j]!.partition === first.partition && records[j]!.topic === first.topic) j++;
      for (let k = i; k < j; k++) {
        const record = records[k]!;
        const pending: Pending = {
          offset: record.offset,
          next: k + 1 < j ? records[k + 1]!.offset : undefined,
          done: false,
          record,
          mark,
          item: undefined,
          lastError: undefined,
        };
        into?.enqueue(pending);
        mark.add(pending);
      }
      i = j;
    }
    if (cursors) this.watermarks.resolveTails(cursors);
    // Workers wake once the whole reply is queued (a run per partition, in fetch order).
    if (dispatch) for (const channel of this.channels) channel.notify();
  }

  private workerFor(topic: string, partition: number): number {
    const workers = this.channels.length;
    if (workers === 1) return 0;
    const key = partitionKey(topic, partition);
    let w = this.affinity.get(key);
    if (w === undefined) this.affinity.set(key, (w = this.affinity.size % workers));
    return w;
  }
}
