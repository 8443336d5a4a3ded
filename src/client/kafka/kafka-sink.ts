/**
 * The producer accumulator (client/producer/, seed 001) on Kafka: a PartitionedProduceSink, so the accumulator
 * keeps one batch per topic-partition, as Kafka's own producer does, and sends each as one produce request of the
 * library's plain (non-idempotent) producer with acks=all. The accumulator is unchanged: linger, batch bytes, the
 * bounded buffer, delivery deadlines and its Kafka-named metrics work as on MoonMQ.
 *
 * partitionFor() must answer at once, so each topic's partition count is cached from metadata. Until a topic's
 * count is known (its first records), those records go to the pseudo-partition -1: that batch is sent as one
 * request spread over the partitions the keys choose once metadata has answered.
 */
import { Producer, ProduceAcks } from '@platformatic/kafka';
import type { BatchResult, ProduceAck, ProducerRecord } from '../backend.js';
import type { BatchFraming, PartitionedProduceSink, SendOptions } from '../producer/sink.js';
import { kafkaCall } from './errors.js';
import { kafkaFraming } from './kafka-framing.js';
import { PartitionChooser, RETRY, acksFor, kafkaCompression, plainSender, sendRecords } from './kafka-produce.js';

/** The pseudo-partition of records whose topic's partition count is not known yet. */
const UNKNOWN = -1;

export interface KafkaSinkContext {
  clientId: string;
  bootstrapBrokers: string[];
  timeoutMs: number;
}

export class KafkaSink implements PartitionedProduceSink {
  readonly framing: BatchFraming = kafkaFraming;
  /** The library's plain producer: the accumulator's retries may duplicate a record, as on MoonMQ's DirectSink. */
  readonly idempotent = false;
  readonly #producer: Producer;
  readonly #chooser: PartitionChooser;
  readonly #counts = new Map<string, number>();
  readonly #looking = new Map<string, Promise<void>>();

  readonly defaultRequestTimeoutMs: number;

  /** `fixedPartition`: every record to this 0-based partition (the producer's `partition` option). */
  constructor(
    context: KafkaSinkContext,
    private readonly fixedPartition?: number,
  ) {
    this.defaultRequestTimeoutMs = context.timeoutMs;
    this.#producer = new Producer({
      clientId: `${context.clientId}-accumulator`,
      bootstrapBrokers: context.bootstrapBrokers,
      timeout: context.timeoutMs,
      acks: ProduceAcks.ALL,
      autocreateTopics: false,
      ...RETRY,
    });
    this.#chooser = new PartitionChooser(this.#producer);
  }

  partitionFor(topic: string, record: ProducerRecord): number {
    if (this.fixedPartition !== undefined) return this.fixedPartition;
    const count = this.#counts.get(topic);
    if (count !== undefined) return this.#chooser.choose(topic, record.key, count);
    this.#lookUp(topic);
    return UNKNOWN;
  }

  async sendPartitionBatch(
    topic: string,
    partition: number,
    records: readonly ProducerRecord[],
    options: SendOptions,
  ): Promise<BatchResult> {
    if (partition === UNKNOWN) return this.sendBatch(topic, records, options);
    // Out of range (a fixed partition the topic lacks): refused with the topic's range, nothing sent.
    const messages = await this.#chooser.messages(topic, records, partition);
    const compression = kafkaCompression(options.codec);
    const send = plainSender(this.#producer);
    const result = await kafkaCall(`produce to ${topic}`, () => send(messages, compression), options.timeoutMs);
    return { acks: acksFor(messages, result.offsets) };
  }

  async send(topic: string, record: ProducerRecord, options: SendOptions): Promise<ProduceAck> {
    const { acks } = await this.sendBatch(topic, [record], options);
    return acks[0]!;
  }

  sendBatch(topic: string, records: readonly ProducerRecord[], options: SendOptions): Promise<BatchResult> {
    return sendRecords(this.#chooser, plainSender(this.#producer), topic, records, { codec: options.codec });
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.#producer.close(true, () => resolve()));
  }

  #lookUp(topic: string): void {
    if (this.#looking.has(topic)) return;
    const done = this.#chooser.partitionCount(topic).then(
      (count) => void this.#counts.set(topic, count),
      () => void this.#looking.delete(topic),
    );
    this.#looking.set(topic, done);
  }
}
