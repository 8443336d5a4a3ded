/**
 * The library's pull consumers on Kafka, each a group member of its own (group-reader.ts):
 *
 * - KafkaConsumer is `client.consumer()`: poll() hands out records and commits the group past them (as a MoonMQ
 *   broker commits what a FETCH sent), commit() moves a partition (to the next record to read).
 * - KafkaGroupFetcher is the batch consumer's reader (backend.ts BackendGroupFetcher). Its fetches run one after
 *   the other, and the cursors it reports are each partition's last handed-out offset + 1: on Kafka offsets count
 *   records, so "the record after" is known without asking the cluster (a gap left by a transaction marker or
 *   compaction is skipped by the next fetch, never a record).
 */
import type {
  BackendConsumer,
  BackendConsumerOptions,
  BackendGroupFetcher,
  BackendIsolation,
  BackendPollOptions,
  BackendTransactionOffset,
  FetchedRecord,
} from '../backend.js';
import { UnsupportedError, UsageError } from '../../errors.js';
import type { NackAck } from '../../protocol/messages/nack.js';
import { validateTopicName } from '../validate.js';
import { GroupReader, type ReaderContext } from './group-reader.js';

/** The longest one fetch waits for records before answering with none (an idle poll returns sooner, caught up). */
const FETCH_WAIT_MS = 1000;

function topicList(topics: string | readonly string[]): string[] {
  const list = typeof topics === 'string' ? [topics] : [...topics];
  if (list.length === 0) throw new UsageError('a consumer needs at least one topic');
  for (const t of list) validateTopicName(t);
  return list;
}

export class KafkaConsumer implements BackendConsumer {
  readonly group: string;
  readonly topics: readonly string[];
  #closed = false;

  private constructor(
    private readonly reader: GroupReader,
    private readonly onClosed: (c: KafkaConsumer) => void,
  ) {
    this.group = reader.group;
    this.topics = reader.topics;
  }

  /** Joins the group; resolves once this member has its partitions. */
  static async create(
    options: BackendConsumerOptions,
    context: ReaderContext,
    onClosed: (c: KafkaConsumer) => void,
  ): Promise<KafkaConsumer> {
    const topics = topicList(options.topics);
    const reader = await GroupReader.open(options.group, topics, options.isolation ?? 'read_uncommitted', context);
    return new KafkaConsumer(reader, onClosed);
  }

  /** maxRecords, else maxPerPartition (default 1) × the partitions assigned to this member. */
  async poll(options: BackendPollOptions = {}): Promise<FetchedRecord[]> {
    if (this.#closed) throw new UsageError('poll on a closed consumer');
    const { maxRecords, maxPerPartition } = options;
    for (const [field, v] of [
      ['maxPerPartition', maxPerPartition],
      ['maxRecords', maxRecords],
    ] as const) {
      if (v !== undefined && (!Number.isInteger(v) || v < 1))
        throw new UsageError(`${field} must be a positive integer, got ${v}`);
    }
    const perPartition = (maxPerPartition ?? 1) * Math.max(1, this.reader.assignedPartitions);
    const max =
      maxRecords === undefined
        ? perPartition
        : maxPerPartition === undefined
          ? maxRecords
          : Math.min(maxRecords, perPartition);
    return this.reader.take(max, options.timeoutMs ?? FETCH_WAIT_MS);
  }

  /** `offset` is the next record to read (0-based partition). */
  commit(topic: string, partition: number, offset: bigint): Promise<void> {
    if (!this.topics.includes(topic)) return Promise.reject(new UsageError(`this consumer does not read ${topic}`));
    return this.reader.commitAt([{ topic, partition, offset }]);
  }

  nack(_topic: string, _partition: number, _offset: bigint, _reason: string): Promise<NackAck> {
    return Promise.reject(new UnsupportedError('kafka', 'NACK (Kafka has no per-record negative acknowledgement)'));
  }

  async *records(options: BackendPollOptions = {}): AsyncGenerator<FetchedRecord, void, undefined> {
    try {
      while (!this.#closed) for (const record of await this.poll(options)) yield record;
    } finally {
      await this.close();
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<FetchedRecord> {
    return this.records({ maxRecords: 100 });
  }

  /** Leaves the group and closes the member's connections. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.onClosed(this);
    await this.reader.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

export class KafkaGroupFetcher implements BackendGroupFetcher {
  #chain: Promise<unknown> = Promise.resolve();
  readonly #next = new Map<string, BackendTransactionOffset>();
  #closed = false;

  private constructor(private readonly reader: GroupReader) {}

  static async open(
    group: string,
    topics: readonly string[],
    isolation: BackendIsolation,
    context: ReaderContext,
  ): Promise<KafkaGroupFetcher> {
    return new KafkaGroupFetcher(await GroupReader.open(group, topicList(topics), isolation, context));
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The member reads all its topics at once, so `topic` only names the batch consumer's turn. */
  fetch(
    _topic: string,
    options: { maxRecords: number; withCursors: boolean },
  ): Promise<{ records: FetchedRecord[]; cursors: BackendTransactionOffset[] | undefined }> {
    const run = this.#chain.then(async () => {
      const messages = await this.reader.take(options.maxRecords, FETCH_WAIT_MS);
      for (const m of messages)
        this.#next.set(`${m.partition}:${m.topic}`, { topic: m.topic, partition: m.partition, offset: m.offset + 1n });
      return { records: messages, cursors: options.withCursors ? this.#snapshot() : undefined };
    });
    this.#chain = run.catch(() => undefined);
    return run;
  }

  async cursors(): Promise<BackendTransactionOffset[]> {
    await this.#chain;
    return this.#snapshot();
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.reader.close();
  }

  #snapshot(): BackendTransactionOffset[] {
    return [...this.#next.values()].map((o) => ({ ...o }));
  }
}
