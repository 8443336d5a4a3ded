/**
 * MoonMQ's FETCH semantics on Kafka: one group member (a @platformatic/kafka consumer in the group, the range of
 * partitions Kafka assigns it) whose records are buffered and handed out `maxRecords` at a time, the group being
 * committed past each handout before it returns, as a MoonMQ broker commits what it sends. A group with nothing
 * committed starts at the earliest offset.
 *
 * An empty handout means "caught up": nothing arrived while every partition leader answered at least one fetch
 * (fetch-loop.ts reports each answer) or the wait ran out.
 */
import { FetchIsolationLevels } from '@platformatic/kafka';
import type { BackendIsolation, FetchedRecord } from '../backend.js';
import { isRetriable, kafkaCall, toCraterError } from './errors.js';
import { FetchLoop } from './fetch-loop.js';
import { GuardedConsumer } from './guarded-clients.js';
import { RETRY } from './kafka-produce.js';

export interface ReaderContext {
  clientId: string;
  bootstrapBrokers: string[];
  timeoutMs: number;
}

/** Buffered records above which fetching pauses. */
const HIGH_WATER = 5000;
/** The broker's wait for data in one fetch (ms): short, so an empty poll is answered quickly. */
const MAX_WAIT_MS = 100;

/** Consumers replaced in a row, without a fetch answered in between, before the reader gives up. */
const MAX_RESTARTS = 3;

/** One key per (topic, partition) for the per-partition maps. */
const partitionKey = (topic: string, partition: number): string => `${partition}:${topic}`;

interface CommitEntry {
  topic: string;
  partition: number;
  offset: bigint;
}

export class GroupReader {
  #consumer: GuardedConsumer;
  #loop: FetchLoop | undefined;
  /** Buffered answers (one partition's records each), the next record's index in the first, and the total. */
  #chunks: FetchedRecord[][] = [];
  #at = 0;
  #buffered = 0;
  #error: Error | undefined;
  #fetches = 0;
  #wake: (() => void) | undefined;
  #closed = false;
  #restarting: Promise<void> | undefined;
  #restarts = 0;
  /** Per partition, the offset after the last record handed out: a new member's older records are dropped. */
  readonly #floor = new Map<string, bigint>();
  /** Commits not yet sent (per partition, the next offset), the commit in flight, and a failure not yet reported. */
  readonly #toCommit = new Map<string, CommitEntry>();
  #committing: Promise<void> | undefined;
  #commitFailure: Error | undefined;

  readonly topics: readonly string[];

  private constructor(
    readonly group: string,
    topics: string | readonly string[],
    readonly isolation: BackendIsolation,
    private readonly context: ReaderContext,
  ) {
    this.topics = typeof topics === 'string' ? [topics] : [...topics];
    this.#consumer = this.#newConsumer();
  }

  /** The (first) topic this member reads. */
  get topic(): string {
    return this.topics[0]!;
  }

  #newConsumer(): GuardedConsumer {
    const consumer = new GuardedConsumer({
      clientId: `${this.context.clientId}-${this.group}`,
      bootstrapBrokers: this.context.bootstrapBrokers,
      groupId: this.group,
      timeout: this.context.timeoutMs,
      sessionTimeout: 10_000,
      heartbeatInterval: 1000,
      autocommit: false,
      ...RETRY,
    });
    // A failed rejoin is emitted as 'error' (unhandled, it would end the process) and a heartbeat that failed all its
    // retries as 'consumer:heartbeat:error': the member has lost its coordinator, so a new one takes over.
    const trouble = (): void => void this.#restart(consumer).catch(() => undefined);
    consumer.on('error', trouble);
    consumer.on('consumer:heartbeat:error', trouble);
    return consumer;
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
    const loop: FetchLoop = new FetchLoop(
      this.#consumer,
      {
        clientId: `${this.context.clientId}-${this.group}`,
        topics: this.topics,
        maxWaitTime: MAX_WAIT_MS,
        requestTimeout: this.context.timeoutMs,
        isolationLevel:
          this.isolation === 'read_committed'
            ? FetchIsolationLevels.READ_COMMITTED
            : FetchIsolationLevels.READ_UNCOMMITTED,
      },
      {
        records: (records) => {
          if (loop === this.#loop) this.#add(records);
        },
        reset: () => {
          if (loop === this.#loop) this.#clearBuffer();
        },
        fetched: () => {
          if (loop !== this.#loop) return;
          this.#fetches += 1;
          this.#restarts = 0;
          this.#notify();
        },
        failed: (error) => {
          if (loop !== this.#loop) return;
          const failure = toCraterError(error, `consume ${this.topics.join(', ')} as ${this.group}`);
          // A fetch that failed all its retries on a dead leader: the library keeps the metadata it had, a new member
          // starts with the cluster's current one.
          if (isRetriable(failure)) void this.#restart(this.#consumer).catch(() => undefined);
          else this.#error = failure;
          this.#notify();
        },
      },
    );
    this.#loop = loop;
    await kafkaCall(`join group ${this.group}`, () => loop.start());
  }

  /** One partition's answer, less what was handed out already (a new member starts at the committed offsets). */
  #add(records: FetchedRecord[]): void {
    const first = records[0]!;
    const floor = this.#floor.get(partitionKey(first.topic, first.partition)) ?? 0n;
    const fresh = first.offset >= floor ? records : records.filter((r) => r.offset >= floor);
    if (fresh.length === 0) return;
    this.#chunks.push(fresh);
    this.#buffered += fresh.length;
    if (this.#buffered >= HIGH_WATER) this.#loop?.pause();
    this.#notify();
  }

  #clearBuffer(): void {
    this.#chunks = [];
    this.#at = 0;
    this.#buffered = 0;
  }

  /** Up to `max` buffered records, oldest first. */
  #takeBuffered(max: number): FetchedRecord[] {
    const head = this.#chunks[0];
    if (head && this.#at === 0 && head.length <= max) {
      this.#chunks.shift();
      this.#buffered -= head.length;
      if (head.length === max || this.#chunks.length === 0) return head;
      return [...head, ...this.#takeBuffered(max - head.length)];
    }
    const taken: FetchedRecord[] = [];
    while (taken.length < max && this.#chunks.length > 0) {
      const chunk = this.#chunks[0]!;
      const n = Math.min(max - taken.length, chunk.length - this.#at);
      for (let i = 0; i < n; i++) taken.push(chunk[this.#at + i]!);
      this.#at += n;
      if (this.#at === chunk.length) {
        this.#chunks.shift();
        this.#at = 0;
      }
    }
    this.#buffered -= taken.length;
    return taken;
  }

  /**
   * Replaces `failed` (the member that lost its coordinator: @platformatic/kafka looks its group coordinator up once
   * per consumer) by a new member, which finds the coordinator anew and starts at the group's committed offsets.
   * Buffered records are dropped: none of them was handed out, so the new member reads them again.
   */
  #restart(failed: GuardedConsumer): Promise<void> {
    if (this.#closed || failed !== this.#consumer) return this.#restarting ?? Promise.resolve();
    if (this.#restarting) return this.#restarting;
    this.#restarting = (async () => {
      this.#restarts += 1;
      const loop = this.#loop;
      this.#loop = undefined;
      this.#clearBuffer();
      this.#consumer = this.#newConsumer();
      await loop?.close().catch(() => undefined);
      // force: leaving the group needs the coordinator this member cannot reach.
      await new Promise<void>((resolve) => failed.close(true, () => resolve()));
      if (this.#restarts > MAX_RESTARTS) throw new Error(`${this.group}: gave up after ${MAX_RESTARTS} new members`);
      await this.#start();
    })()
      .catch((error: unknown) => {
        this.#error ??= toCraterError(error, `rejoin group ${this.group}`);
        throw this.#error;
      })
      .finally(() => {
        this.#restarting = undefined;
        this.#notify();
      });
    return this.#restarting;
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

  /**
   * Up to `max` records, waiting at most `waitMs` for the first. The group is committed past them in the background,
   * one commit in flight (later handouts merged into the next): a commit per handout awaited before returning made
   * every fetch two round trips. commitAt(), settle() and close() wait for those commits; a failed one is thrown by
   * the next take() or settle(). Until it lands a crash re-reads the records (at least once, as on MoonMQ).
   */
  async take(max: number, waitMs: number): Promise<FetchedRecord[]> {
    const deadline = performance.now() + waitMs;
    const fetchesAtStart = this.#fetches;
    while ((this.#buffered === 0 || this.#restarting) && !this.#error && !this.#closed) {
      if (this.#restarting) await this.#restarting.catch(() => undefined);
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
    this.#throwCommitFailure();
    const taken = this.#takeBuffered(max);
    if (this.#buffered < HIGH_WATER / 2 && this.#loop?.paused) this.#loop.resume();
    // Records come in runs of one partition: the maps are set once per run.
    for (let i = 0; i < taken.length; i++) {
      const m = taken[i]!;
      const next = taken[i + 1];
      if (next && next.partition === m.partition && next.topic === m.topic) continue;
      const key = partitionKey(m.topic, m.partition);
      this.#floor.set(key, m.offset + 1n);
      this.#toCommit.set(key, { topic: m.topic, partition: m.partition, offset: m.offset + 1n });
    }
    if (taken.length > 0) this.#committing ??= this.#sendCommits();
    return taken;
  }

  /** Resolves once every handout so far is committed; throws a commit that failed. */
  async settle(): Promise<void> {
    while (this.#committing) await this.#committing;
    this.#throwCommitFailure();
  }

  #throwCommitFailure(): void {
    const failure = this.#commitFailure;
    this.#commitFailure = undefined;
    if (failure) throw failure;
  }

  async #sendCommits(): Promise<void> {
    try {
      while (this.#toCommit.size > 0) {
        const offsets = [...this.#toCommit.values()];
        this.#toCommit.clear();
        await this.#commitWithNewMember(offsets);
      }
    } catch (error) {
      this.#commitFailure = error as Error;
    } finally {
      this.#committing = undefined;
    }
  }

  /** A member that lost its coordinator is replaced and the commit made again by the new one. */
  async #commitWithNewMember(offsets: readonly CommitEntry[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const consumer = this.#consumer;
      try {
        await this.#commitNow(offsets);
        return;
      } catch (error) {
        if (attempt >= MAX_RESTARTS || !isRetriable(error)) throw error;
        // The new member starts at the old committed offsets; #floor drops what was already handed out.
        await this.#restart(consumer);
      }
    }
  }

  /**
   * Commits each entry's offset (the next record to read; `topic` defaults to the first topic) after the background
   * commits of earlier handouts, so it is never overwritten by one.
   */
  async commitAt(offsets: readonly { topic?: string; partition: number; offset: bigint }[]): Promise<void> {
    const entries = offsets.map((o) => ({ topic: o.topic ?? this.topic, partition: o.partition, offset: o.offset }));
    await this.settle();
    await this.#commitNow(entries);
    // Handed back: a new member may hand these records out again.
    for (const o of entries) {
      const key = partitionKey(o.topic, o.partition);
      if ((this.#floor.get(key) ?? 0n) > o.offset) this.#floor.set(key, o.offset);
    }
  }

  async #commitNow(offsets: readonly CommitEntry[]): Promise<void> {
    if (offsets.length === 0) return;
    const list = offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: o.offset, leaderEpoch: -1 }));
    await kafkaCall(`commit ${this.group}`, () => this.#consumer.commit({ offsets: list }));
  }

  /** Leaves the group (so it can be deleted) and closes the member's connections. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#notify();
    await this.#restarting?.catch(() => undefined);
    await this.settle().catch(() => undefined);
    await this.#loop?.close().catch(() => undefined);
    await this.#consumer.close().catch(() => undefined);
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
