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
 *
 * A partition that cannot be fetched from (no leader in the metadata, say while a broker is killed, or a fetch that
 * failed on the network or with NOT_LEADER_OR_FOLLOWER) is skipped for the round while the others are fetched; the
 * metadata is refreshed after a backoff, and the loop fails only when a partition stays unavailable past
 * `unavailableDeadlineMs` (fetch-availability.ts).
 */
import {
  ConnectionPool,
  ListOffsetTimestamps,
  MultipleErrors,
  type RecordsBatch,
  ResponseError,
} from '@platformatic/kafka';
import { TimeoutError } from '../../errors.js';
import type { RecordHeader } from '../../protocol/headers.js';
import type { FetchedRecord } from '../backend.js';
import { type ProducerClock, systemClock } from '../producer/clock.js';
import { Unavailable, isTransientFetchError } from './fetch-availability.js';
import type { GuardedConsumer } from './guarded-clients.js';

/** The attributes bit of a control batch (transaction markers). */
type FetchOptions = Parameters<GuardedConsumer['fetch']>[0];
type FetchRequestTopic = FetchOptions['topics'][number];
type FetchResponse = Awaited<ReturnType<GuardedConsumer['fetch']>>;
type ClusterMetadata = Awaited<ReturnType<GuardedConsumer['metadata']>>;

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
  /** How long a partition may stay unfetchable before the loop fails (default: 30 s, or requestTimeout if longer). */
  unavailableDeadlineMs?: number;
  /** Time for the backoff and the deadline (tests pass a manual clock). */
  clock?: ProducerClock;
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
  readonly #clock: ProducerClock;
  readonly #unavailable: Unavailable;
  #retry: unknown;
  #staleMetadata = false;
  readonly #onJoin = (): void => void this.#refresh();

  constructor(
    private readonly consumer: GuardedConsumer,
    private readonly options: FetchLoopOptions,
    private readonly sink: FetchSink,
  ) {
    this.#pool = new ConnectionPool(`${options.clientId}-fetch`, { requestTimeout: options.requestTimeout });
    this.#clock = options.clock ?? systemClock;
    this.#unavailable = new Unavailable(() => this.#clock.now());
  }

  get #deadlineMs(): number {
    return this.options.unavailableDeadlineMs ?? Math.max(30_000, this.options.requestTimeout);
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
    if (this.#retry !== undefined) this.#clock.clearTimer(this.#retry);
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
      this.#unavailable.clearAll();
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

  /** A Fetch to every leader of an assigned partition that has none in flight; leaderless partitions wait. */
  #round(): void {
    if (this.#stopped || this.#paused || this.#refreshing) return;
    const generation = this.#generation;
    const forceUpdate = this.#staleMetadata;
    this.#staleMetadata = false;
    this.consumer.metadata({ topics: this.consumer.topics.current, forceUpdate }, (error, metadata) => {
      if (this.#stopped || generation !== this.#generation) return;
      if (error || !metadata) {
        const cause = error ?? new Error('no metadata');
        if (!isTransientFetchError(cause)) return this.#fail(cause);
        for (const { topic, partitions } of this.#assigned())
          for (const p of partitions) this.#unavailable.mark(key(topic, p), `metadata: ${cause.message}`);
        return this.#backOff();
      }
      const ids = new Map<string, string>();
      const byLeader = this.#plan(metadata, ids);
      for (const [leader, topics] of byLeader) this.#send(leader, topics, ids, generation);
      if (this.#unavailable.size > 0) this.#backOff();
    });
  }

  /** The round's requests by leader; a partition without a leader the metadata knows is marked unavailable. */
  #plan(metadata: ClusterMetadata, ids: Map<string, string>): Map<number, FetchRequestTopic[]> {
    const byLeader = new Map<number, FetchRequestTopic[]>();
    for (const { topic, partitions } of this.#assigned()) {
      const info = metadata.topics.get(topic);
      if (!info) continue;
      ids.set(info.id, topic);
      for (const partition of partitions) {
        const leader = info.partitions[partition]?.leader ?? -1;
        const fetchOffset = this.#positions.get(key(topic, partition));
        if (fetchOffset === undefined) continue;
        if (leader < 0 || !metadata.brokers.has(leader)) {
          this.#unavailable.mark(
            key(topic, partition),
            leader < 0 ? 'no leader' : `leader ${leader} is not in the metadata`,
          );
          continue;
        }
        if (this.#inflight.has(leader)) continue;
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
    return byLeader;
  }

  /** Fails the loop when a partition was unavailable too long; else the next round waits a backoff, with fresh metadata. */
  #backOff(): void {
    const late = this.#unavailable.expired(this.#deadlineMs);
    if (late) {
      const [partition, topic] = late.partition.split(':'); // Kafka topic names have no ':'
      return this.#fail(
        new TimeoutError(
          `fetch: partition ${partition} of ${topic} could not be fetched for ${late.forMs} ms (${late.cause})`,
        ),
      );
    }
    if (this.#retry !== undefined) return;
    this.#retry = this.#clock.setTimer(() => {
      this.#retry = undefined;
      this.#staleMetadata = true;
      this.#round();
    }, this.#unavailable.nextBackoff());
  }

  #send(leader: number, topics: FetchRequestTopic[], ids: Map<string, string>, generation: number): void {
    this.#inflight.add(leader);
    const { isolationLevel, maxWaitTime } = this.options;
    const options = { node: leader, topics, isolationLevel, maxWaitTime, connectionPool: this.#pool };
    this.consumer.fetch(options, (error, response) => {
      if (this.#stopped || generation !== this.#generation) return;
      this.#inflight.delete(leader);
      if (error || !response) {
        const cause = error ?? new Error('no fetch response');
        if (!isTransientFetchError(cause)) return this.#fail(cause);
        this.#fetchFailed(cause, topics, ids);
      } else {
        this.#deliver(response, topics, ids);
        this.sink.fetched();
      }
      if (this.#unavailable.size > 0) this.#backOff();
      process.nextTick(() => this.#round());
    });
  }

  /** A transient fetch failure: what the answer carries is delivered, the rest of its partitions marked unavailable. */
  #fetchFailed(error: Error, asked: FetchRequestTopic[], ids: Map<string, string>): void {
    const partial = responseOf(error);
    if (partial) this.#deliver(partial, asked, ids);
    for (const t of asked) {
      for (const p of t.partitions) {
        const k = key(ids.get(t.topicId)!, p.partition);
        const answered = partial?.responses
          .find((r) => r.topicId === t.topicId)
          ?.partitions.find((q) => q.partitionIndex === p.partition);
        if (!answered || answered.errorCode !== 0) this.#unavailable.mark(k, error.message);
      }
    }
  }

  #deliver(response: FetchResponse, asked: FetchRequestTopic[], ids: Map<string, string>): void {
    const from = new Map<string, bigint>();
    for (const t of asked) for (const p of t.partitions) from.set(key(ids.get(t.topicId)!, p.partition), p.fetchOffset);
    for (const topicResponse of response.responses) {
      const topic = ids.get(topicResponse.topicId);
      if (topic === undefined) continue;
      for (const { records: batches, partitionIndex: partition, errorCode } of topicResponse.partitions) {
        const k = key(topic, partition);
        const start = from.get(k);
        if (errorCode !== 0) continue;
        if (start !== undefined) this.#unavailable.clear(k);
        if (!batches || batches.length === 0 || start === undefined || this.#positions.get(k) !== start) continue;
        const last = batches[batches.length - 1]!;
        this.#positions.set(k, last.firstOffset + BigInt(last.lastOffsetDelta) + 1n);
        const out = toRecords(topic, partition, start, batches);
        if (out.length > 0) this.sink.records(out);
      }
    }
  }
}

/** The parsed answer a failed fetch still carries (a ResponseError's, the last one's after the library's retries). */
function responseOf(error: unknown): FetchResponse | undefined {
  if (error instanceof MultipleErrors && !(error instanceof ResponseError)) return responseOf(error.errors.at(-1));
  const response = (error as { response?: Partial<FetchResponse> } | undefined)?.response;
  return Array.isArray(response?.responses) ? (response as FetchResponse) : undefined;
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
