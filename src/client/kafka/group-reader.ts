/**
 * MoonMQ's FETCH semantics on Kafka: one group member (a @platformatic/kafka consumer in the group, the range of
 * partitions Kafka assigns it) whose records are buffered and handed out `maxRecords` at a time, the group being
 * committed past each handout before it returns, as a MoonMQ broker commits what it sends. A group with nothing
 * committed starts at the earliest offset.
 *
 * An empty handout means "caught up": nothing arrived while every partition leader answered at least one fetch
 * (the stream emits 'fetch' per answer) or the wait ran out.
 */
import { Consumer, FetchIsolationLevels, type Message, type MessagesStream } from '@platformatic/kafka';
import type { BackendIsolation, FetchedRecord } from '../backend.js';
import { kafkaCall, toCraterError } from './errors.js';
import { RETRY } from './kafka-produce.js';

export interface ReaderContext {
  clientId: string;
  bootstrapBrokers: string[];
  timeoutMs: number;
}

/** Buffered records above which the stream is paused. */
const HIGH_WATER = 5000;
/** The broker's wait for data in one fetch (ms): short, so an empty poll is answered quickly. */
const MAX_WAIT_MS = 100;

/** A null key, value or header value on the wire arrives as null, whatever @platformatic/kafka's types say. */
const orEmpty = (bytes: Buffer | null | undefined): Buffer => bytes ?? Buffer.alloc(0);

export function toFetchedRecord(m: Message): FetchedRecord {
  const headers = [...m.headers].map(([name, value]) => ({
    name: name.toString('utf8'),
    value: orEmpty(value),
  }));
  return {
    topic: m.topic,
    partition: m.partition,
    offset: m.offset,
    timestamp: m.timestamp,
    key: orEmpty(m.key),
    value: orEmpty(m.value),
    headers,
  };
}

export class GroupReader {
  readonly #consumer: Consumer;
  #stream: MessagesStream<Buffer, Buffer, Buffer, Buffer> | undefined;
  #buffer: Message[] = [];
  #error: Error | undefined;
  #fetches = 0;
  #wake: (() => void) | undefined;
  #closed = false;

  readonly topics: readonly string[];

  private constructor(
    readonly group: string,
    topics: string | readonly string[],
    readonly isolation: BackendIsolation,
    context: ReaderContext,
  ) {
    this.topics = typeof topics === 'string' ? [topics] : [...topics];
    this.#consumer = new Consumer({
      clientId: `${context.clientId}-${group}`,
      bootstrapBrokers: context.bootstrapBrokers,
      groupId: group,
      timeout: context.timeoutMs,
      sessionTimeout: 10_000,
      heartbeatInterval: 1000,
      autocommit: false,
      ...RETRY,
    });
  }

  /** The (first) topic this member reads. */
  get topic(): string {
    return this.topics[0]!;
  }

  /** Joins the group and starts fetching; resolves once the member has its assignment. */
  static async open(
    group: string,
    topic: string | readonly string[],
    isolation: BackendIsolation,
    context: ReaderContext,
  ): Promise<GroupReader> {
    const reader = new GroupReader(group, topic, isolation, context);
    try {
      await reader.#start();
    } catch (error) {
      await reader.close();
      throw error;
    }
    return reader;
  }

  async #start(): Promise<void> {
    const stream = await kafkaCall(`join group ${this.group}`, () =>
      this.#consumer.consume({
        topics: [...this.topics],
        mode: 'committed',
        fallbackMode: 'earliest',
        autocommit: false,
        maxWaitTime: MAX_WAIT_MS,
        isolationLevel:
          this.isolation === 'read_committed'
            ? FetchIsolationLevels.READ_COMMITTED
            : FetchIsolationLevels.READ_UNCOMMITTED,
      }),
    );
    this.#stream = stream;
    stream.on('data', (m: Message) => {
      this.#buffer.push(m);
      if (this.#buffer.length >= HIGH_WATER) stream.pause();
      this.#notify();
    });
    stream.on('fetch', () => {
      this.#fetches += 1;
      this.#notify();
    });
    stream.on('error', (error: Error) => {
      this.#error = toCraterError(error, `consume ${this.topics.join(', ')} as ${this.group}`);
      this.#notify();
    });
  }

  /** Partition leaders this member fetches from (how many 'fetch' answers one round has). */
  #leaders(): number {
    const leaders = new Set<number>();
    for (const a of this.#consumer.assignments ?? []) {
      if (!this.topics.includes(a.topic)) continue;
      const metadata = this.#consumer.currentMetadata?.topics.get(a.topic);
      for (const p of a.partitions) leaders.add(metadata?.partitions[p]?.leader ?? -1);
    }
    return Math.max(1, leaders.size);
  }

  /** Partitions of this member's topics that Kafka assigned it (0 before the first assignment). */
  get assignedPartitions(): number {
    let n = 0;
    for (const a of this.#consumer.assignments ?? []) if (this.topics.includes(a.topic)) n += a.partitions.length;
    return n;
  }

  /** Up to `max` records, waiting at most `waitMs` for the first; the group is committed past them. */
  async take(max: number, waitMs: number): Promise<Message[]> {
    const deadline = performance.now() + waitMs;
    const fetchesAtStart = this.#fetches;
    while (this.#buffer.length === 0 && !this.#error && !this.#closed) {
      const left = deadline - performance.now();
      if (left <= 0 || this.#fetches - fetchesAtStart >= this.#leaders() + 1) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, left);
        function done(): void {
          clearTimeout(timer);
          resolve();
        }
        this.#wake = done;
      });
      this.#wake = undefined;
    }
    if (this.#error) throw this.#error;
    const taken = this.#buffer.splice(0, max);
    if (this.#buffer.length < HIGH_WATER / 2 && this.#stream?.isPaused()) this.#stream.resume();
    await this.commitPast(taken);
    return taken;
  }

  async commitPast(messages: readonly Message[]): Promise<void> {
    const next = new Map<string, { topic: string; partition: number; offset: bigint }>();
    for (const m of messages)
      next.set(`${m.partition}:${m.topic}`, { topic: m.topic, partition: m.partition, offset: m.offset + 1n });
    await this.commitAt([...next.values()]);
  }

  /** Commits each entry's offset (the next record to read); `topic` defaults to the first topic. */
  async commitAt(offsets: readonly { topic?: string; partition: number; offset: bigint }[]): Promise<void> {
    if (offsets.length === 0) return;
    const list = offsets.map((o) => ({
      topic: o.topic ?? this.topic,
      partition: o.partition,
      offset: o.offset,
      leaderEpoch: -1,
    }));
    await kafkaCall(`commit ${this.group}`, () => this.#consumer.commit({ offsets: list }));
  }

  /** Leaves the group (so it can be deleted) and closes the member's connections. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#notify();
    await this.#stream?.close().catch(() => undefined);
    await this.#consumer.close().catch(() => undefined);
  }

  #notify(): void {
    this.#wake?.();
  }
}
