/**
 * Producing to Kafka. crater picks each record's partition itself (Java's default for a key: murmur2 & 0x7fffffff
 * modulo the partition count, so a key lands where a Java producer puts it; round robin without a key) and sends
 * it explicitly, because Kafka acknowledges a batch with one base offset per partition: a record's offset is that
 * base plus its position among the batch's records for the same partition. Every send waits for acks=all.
 *
 * A Kafka batch spans partitions and each partition succeeds or fails on its own, so there is no "landed prefix":
 * a failed send throws for the whole batch (with an idempotent producer a resend is deduplicated).
 */
import {
  type CompressionAlgorithmValue,
  type MessageToProduce,
  type Producer,
  ProduceAcks,
  compressionsAlgorithms,
  murmur2,
} from '@platformatic/kafka';
import type {
  BackendCodec,
  BackendProduceOptions,
  BatchResult,
  ProduceAck,
  ProducerRecord,
  RecordHeader,
} from '../backend.js';
import { UnsupportedError, UsageError } from '../../errors.js';
import { validateTopicName } from '../validate.js';
import { kafkaCall } from './errors.js';

/**
 * Retries of a failed request (a lost leader, a coordinator moving): 20 × 500 ms covers a broker's death being
 * noticed (broker.session.timeout.ms, 9 s by default) and a new leader elected. Idempotent sends keep their
 * sequence numbers across retries, so a retried batch is not appended twice.
 */
export const RETRY = { retries: 20, retryDelay: 500 } as const;

const CODECS: Readonly<Record<string, CompressionAlgorithmValue>> = {
  none: 'none',
  gzip: 'gzip',
  snappy: 'snappy',
  lz4: 'lz4',
  zstd: 'zstd',
  0: 'none',
  1: 'gzip',
  2: 'snappy',
};

export function kafkaCompression(codec: BackendCodec | undefined): CompressionAlgorithmValue {
  if (codec === undefined) return 'none';
  const name = CODECS[String(codec)];
  if (!name) throw new UsageError(`unknown codec '${String(codec)}' for Kafka: use none, gzip, snappy, lz4 or zstd`);
  // zstd comes from node:zlib, which has it from Node 22.15 on.
  if (!compressionsAlgorithms[name].available)
    throw new UnsupportedError('kafka', `${name} compression on Node ${process.versions.node}`);
  return name;
}

function bytes(v: Buffer | string | undefined): Buffer | undefined {
  if (v === undefined) return undefined;
  return typeof v === 'string' ? Buffer.from(v, 'utf8') : v;
}

/** Headers keep their order and duplicates: each name is its own Buffer, so equal names are distinct Map keys. */
export function kafkaHeaders(headers: readonly RecordHeader[] | undefined): Map<Buffer, Buffer> | undefined {
  if (!headers || headers.length === 0) return undefined;
  return new Map(headers.map((h) => [Buffer.from(h.name, 'utf8'), h.value]));
}

/** Chooses partitions and turns the per-partition base offsets of a reply into one ack per record. */
export class PartitionChooser {
  private readonly roundRobin = new Map<string, number>();

  constructor(private readonly producer: Producer) {}

  async partitionCount(topic: string): Promise<number> {
    const metadata = await kafkaCall(`metadata of ${topic}`, () => this.producer.metadata({ topics: [topic] }));
    const count = metadata.topics.get(topic)?.partitionsCount;
    if (count === undefined) throw new UsageError(`topic ${topic} is not in the cluster's metadata`);
    return count;
  }

  async messages(
    topic: string,
    records: readonly ProducerRecord[],
    partition: number | undefined,
  ): Promise<MessageToProduce[]> {
    validateTopicName(topic);
    const count = await this.partitionCount(topic);
    if (partition !== undefined && (!Number.isInteger(partition) || partition < 0 || partition >= count)) {
      throw new UsageError(`partition ${partition} is out of range: ${topic} has partitions 0..${count - 1} on Kafka`);
    }
    return records.map((r) => {
      const key = bytes(r.key);
      const chosen = partition ?? this.choose(topic, key, count);
      const message: MessageToProduce = { topic, partition: chosen, key, value: bytes(r.value) ?? Buffer.alloc(0) };
      const headers = kafkaHeaders(r.headers);
      if (headers) message.headers = headers;
      return message;
    });
  }

  /** Java's default partitioner for a key (murmur2 & 0x7fffffff modulo the count), round robin without one. */
  choose(topic: string, key: Buffer | string | undefined, count: number): number {
    const k = bytes(key);
    return k && k.length > 0 ? (murmur2(k) & 0x7fffffff) % count : this.nextRoundRobin(topic, count);
  }

  private nextRoundRobin(topic: string, count: number): number {
    const n = this.roundRobin.get(topic) ?? 0;
    this.roundRobin.set(topic, n + 1);
    return n % count;
  }
}

export function acksFor(
  messages: readonly MessageToProduce[],
  bases: readonly { partition: number; offset: bigint }[] | undefined,
): ProduceAck[] {
  const base = new Map((bases ?? []).map((b) => [b.partition, b.offset]));
  const next = new Map<number, bigint>();
  return messages.map((m) => {
    const partition = m.partition!;
    const at = next.get(partition) ?? base.get(partition);
    if (at === undefined) throw new UsageError(`the cluster acknowledged no offset for partition ${partition}`);
    next.set(partition, at + 1n);
    return { partition, offset: at };
  });
}

type Sender = (
  messages: MessageToProduce[],
  compression: CompressionAlgorithmValue,
) => Promise<{ offsets?: { partition: number; offset: bigint }[] }>;

/** One send of `records` through `send` (a producer's or a transaction's), acks aligned with the records. */
export async function sendRecords(
  chooser: PartitionChooser,
  send: Sender,
  topic: string,
  records: readonly ProducerRecord[],
  options: BackendProduceOptions = {},
): Promise<BatchResult> {
  if (records.length === 0) return { acks: [] };
  const messages = await chooser.messages(topic, records, options.partition);
  const compression = kafkaCompression(options.codec);
  const result = await kafkaCall(`produce to ${topic}`, () => send(messages, compression));
  return { acks: acksFor(messages, result.offsets) };
}

export function plainSender(producer: Producer): Sender {
  return (messages, compression) => producer.send({ messages, compression, acks: ProduceAcks.ALL });
}
