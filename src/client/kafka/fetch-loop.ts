/**
 * The fetching half of a group member, in place of @platformatic/kafka's MessagesStream. A CPU profile of
 * `bench throughput --broker kafka://...`'s fetch phase spent about a third of its time in the stream's per-record
 * work (a Message object spread from the parsed record, a bound commit function, a headers Map and a diagnostics
 * context per record, then the Readable machinery), which crater threw away again to build its FetchedRecord. Here
 * the FetchedRecords are built once, straight from the batches Consumer.fetch parsed (which also drops aborted
 * transactions under read_committed).
 *
 * What it keeps of the stream: one Fetch in flight per partition leader, on a connection pool of its own (a Fetch
 * waiting for data must not hold up the group's heartbeats and commits); positions from the group's committed
 * offsets (earliest where there is none), set again after every rebalance; control batches skipped; a record
 * below the position it was asked from dropped (a batch starts before it). An answer of a fetch sent before a
 * rebalance is dropped.
 */
import { ConnectionPool, ListOffsetTimestamps, type RecordsBatch } from '@platformatic/kafka';
import type { RecordHeader } from '../../protocol/headers.js';
import type { FetchedRecord } from '../backend.js';
import type { GuardedConsumer } from './guarded-clients.js';

/** The attributes bit of a control batch (transaction markers). */
type FetchOptions = Parameters<GuardedConsumer['fetch']>[0];
type FetchRequestTopic = FetchOptions['topics'][number];
type FetchResponse = Awaited<ReturnType<GuardedConsumer['fetch']>>;

const IS_CONTROL = 0b10_0000;
const EMPTY = Buffer.alloc(0);

export interface FetchSink {
  /** Records of one partition's answer, in offset order. */
  records(records: FetchedRecord[]): void;
  /** A rebalance: positions go back to the committed offsets, so what is buffered comes again (or goes to another member). */
  reset(): void;
  /** One leader answered (with records or none). */
  fetched(): void;
  /** The loop stopped on this error. */
  failed(error: Error): void;
}

export interface FetchLoopOptions {
  clientId: string;
  topics: readonly string[];
  isolationLevel: number;
  maxWaitTime: number;
  requestTimeout: number;
}

const key = (topic: string, partition: number): string => `${partition}:${topic}`;

export class FetchLoop {
  readonly #positions = new Map<string, bigint>();
  readonly #inflight = new Set<number>();
  readonly #pool: ConnectionPool;
  #generation = 0;
  #refreshing: Promise<void> | undefined;
  #paused = false;
  #stopped = false;
  readonly #onJoin = (): void => void this.#refresh();

  constructor(
    private readonly consumer: GuardedConsumer,
    private readonly options: FetchLoopOptions,
    private readonly sink: FetchSink,
  ) {
    this.#pool = new ConnectionPool(`${options.clientId}-fetch`, { requestTimeout: options.requestTimeout });
  }

  /** Joins the group, reads the starting positions and starts fetching. */
  async start(): Promise<void> {
    this.consumer.topics.trackAll(...this.options.topics);
    await this.consumer.joinGroup({});
    this.consumer.on('consumer:group:join', this.#onJoin);
    await this.#refresh(true);
  }

  get paused(): boolean {
    return this.#paused;
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#round();
  }

  /** Stops fetching (answers still in flight are dropped) and closes the fetch connections. */
  async close(): Promise<void> {
    this.#stopped = true;
    this.consumer.off('consumer:group:join', this.#onJoin);
    await new Promise<void>((resolve) => this.#pool.close(() => resolve()));
  }

  #assigned(): { topic: string; partitions: number[] }[] {
    return (this.consumer.assignments ?? []).filter((a) => this.options.topics.includes(a.topic));
  }

  /** Positions for the (new) assignment: the group's committed offsets, earliest where none. */
  #refresh(rethrow = false): Promise<void> {
    const run = (this.#refreshing ?? Promise.resolve()).then(async () => {
      const generation = ++this.#generation;
      this.#positions.clear();
      this.sink.reset();
      const assigned = this.#assigned();
      if (assigned.length > 0) {
        const topics = assigned.map((a) => a.topic);
        const earliest = await this.consumer.listOffsets({ topics, timestamp: ListOffsetTimestamps.EARLIEST });
        const committed = await this.consumer.listCommittedOffsets({ topics: assigned });
        if (generation !== this.#generation) return;
        for (const { topic, partitions } of assigned) {
          for (const p of partitions) {
            const c = committed.get(topic)?.[p] ?? -1n;
            this.#positions.set(key(topic, p), c >= 0n ? c : (earliest.get(topic)?.[p] ?? 0n));
          }
        }
      }
      this.#inflight.clear();
    });
    this.#refreshing = run.finally(() => {
      if (this.#refreshing === tracked) this.#refreshing = undefined;
      this.#round();
    });
    const tracked = this.#refreshing;
    return run.catch((error: unknown) => {
      if (rethrow) throw error;
      this.#fail(error as Error);
    });
  }

  #fail(error: Error): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.sink.failed(error);
  }

  /** A Fetch to every leader of an assigned partition that has none in flight. */
  #round(): void {
    if (this.#stopped || this.#paused || this.#refreshing) return;
    const generation = this.#generation;
    this.consumer.metadata({ topics: this.consumer.topics.current }, (error, metadata) => {
      if (error || !metadata) return this.#fail(error ?? new Error('no metadata'));
      if (this.#stopped || generation !== this.#generation) return;
      const byLeader = new Map<number, FetchRequestTopic[]>();
      const ids = new Map<string, string>();
      for (const { topic, partitions } of this.#assigned()) {
        const info = metadata.topics.get(topic);
        if (!info) continue;
        ids.set(info.id, topic);
        for (const partition of partitions) {
          const leader = info.partitions[partition]?.leader ?? -1;
          const fetchOffset = this.#positions.get(key(topic, partition));
          if (this.#inflight.has(leader) || fetchOffset === undefined) continue;
          const request = {
            partition,
            fetchOffset,
            partitionMaxBytes: 10 << 20,
            currentLeaderEpoch: -1,
            lastFetchedEpoch: -1,
          };
          const list = byLeader.get(leader) ?? [];
          list.push({ topicId: info.id, partitions: [request] });
          byLeader.set(leader, list);
        }
      }
      for (const [leader, topics] of byLeader) this.#send(leader, topics, ids, generation);
    });
  }

  #send(leader: number, topics: FetchRequestTopic[], ids: Map<string, string>, generation: number): void {
    this.#inflight.add(leader);
    const { isolationLevel, maxWaitTime } = this.options;
    const options = { node: leader, topics, isolationLevel, maxWaitTime, connectionPool: this.#pool };
    this.consumer.fetch(options, (error, response) => {
      if (this.#stopped || generation !== this.#generation) return;
      this.#inflight.delete(leader);
      if (error || !response) return this.#fail(error ?? new Error('no fetch response'));
      this.#deliver(response, topics, ids);
      this.sink.fetched();
      process.nextTick(() => this.#round());
    });
  }

  #deliver(response: FetchResponse, asked: FetchRequestTopic[], ids: Map<string, string>): void {
    const from = new Map<string, bigint>();
    for (const t of asked) for (const p of t.partitions) from.set(key(ids.get(t.topicId)!, p.partition), p.fetchOffset);
    for (const topicResponse of response.responses) {
      const topic = ids.get(topicResponse.topicId);
      if (topic === undefined) continue;
      for (const { records: batches, partitionIndex: partition } of topicResponse.partitions) {
        const k = key(topic, partition);
        const start = from.get(k);
        if (!batches || batches.length === 0 || start === undefined || this.#positions.get(k) !== start) continue;
        const last = batches[batches.length - 1]!;
        this.#positions.set(k, last.firstOffset + BigInt(last.lastOffsetDelta) + 1n);
        const out = toRecords(topic, partition, start, batches);
        if (out.length > 0) this.sink.records(out);
      }
    }
  }
}

function toRecords(topic: string, partition: number, start: bigint, batches: RecordsBatch[]): FetchedRecord[] {
  const out: FetchedRecord[] = [];
  for (const batch of batches) {
    if (batch.attributes & IS_CONTROL) continue;
    for (const r of batch.records) {
      const offset = batch.firstOffset + BigInt(r.offsetDelta);
      if (offset < start) continue;
      const headers: RecordHeader[] = [];
      for (const [name, value] of r.headers)
        headers.push({ name: (name ?? EMPTY).toString('utf8'), value: value ?? EMPTY });
      out.push({
        topic,
        partition,
        offset,
        timestamp: batch.firstTimestamp + r.timestampDelta,
        key: r.key ?? EMPTY,
        value: r.value ?? EMPTY,
        headers,
      });
    }
  }
  return out;
}
