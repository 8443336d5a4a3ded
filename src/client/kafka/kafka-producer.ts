/**
 * An idempotent (and, with a producerName, transactional) producer on Kafka. producerName becomes Kafka's
 * transactional.id: a new producer with the same name fences the previous one, as a MoonMQ durable producer does.
 * Sends wait for acks=all; the library numbers sequences per partition, so a resend after a lost reply is
 * deduplicated by the partition leader.
 *
 * After a failed send the library's session is not reused: the library advances a partition's sequence only when a
 * reply arrives, so the next send would carry the failed one's sequence numbers. If the failed batch did land (its
 * reply was lost with a killed leader), the new leader takes the next batch for a resend of it, answers with the old
 * offsets and drops the records: acknowledged and lost. The next send therefore starts a new session (a new producer
 * id; with a transactional.id, the same id with a bumped epoch), as Java's producer bumps its epoch (KIP-360).
 */
import {
  FindCoordinatorKeyTypes,
  type Admin,
  type Consumer,
  type Message,
  type MessageToProduce,
  type Producer,
  ProduceAcks,
} from '@platformatic/kafka';
import type {
  BackendProducer,
  BackendProducerOptions,
  BackendTransactionOffset,
  BackendTransactionState,
  BatchResult,
  ProduceAck,
  ProducerRecord,
} from '../backend.js';
import { UsageError } from '../../errors.js';
import { kafkaCall } from './errors.js';
import { GuardedProducer } from './guarded-clients.js';
import { PartitionChooser, RETRY, kafkaCompression, sendRecords } from './kafka-produce.js';
import { countProduceRequests, produceRequests, releaseProduceRequests } from './request-counter.js';
import { SEND_QUEUE_DEFAULTS, SendQueue } from './send-queue.js';

/** The library's transaction (its class is not exported by name). */
type Transaction = NonNullable<Producer['transaction']>;

export interface KafkaProducerContext {
  clientId: string;
  bootstrapBrokers: string[];
  timeoutMs: number;
  admin: Admin;
}

export class KafkaProducer implements BackendProducer {
  #producer: Producer;
  #chooser: PartitionChooser;
  /** A send failed: the session's sequence numbers may name records already written (see above). */
  #stale = false;
  readonly #queue: SendQueue;
  readonly #durable: boolean;
  #txn: Transaction | undefined;
  #failed = false;
  #closed = false;
  /** Produce requests of the library sessions already ended. */
  #endedRequests = 0;

  constructor(
    private readonly context: KafkaProducerContext,
    private readonly options: BackendProducerOptions,
  ) {
    this.#durable = options.producerName !== undefined;
    this.#producer = this.#newProducer();
    this.#chooser = new PartitionChooser(this.#producer);
    this.#queue = new SendQueue((topic, records) => this.#sendNow(topic, records), {
      maxRecords: options.maxBatchRecords ?? SEND_QUEUE_DEFAULTS.maxRecords,
      maxBytes: Math.min(options.batchBytes ?? SEND_QUEUE_DEFAULTS.maxBytes, SEND_QUEUE_DEFAULTS.maxBytes),
    });
  }

  #newProducer(): Producer {
    const { context, options } = this;
    const producer = new GuardedProducer({
      clientId: `${context.clientId}-producer`,
      bootstrapBrokers: context.bootstrapBrokers,
      timeout: context.timeoutMs,
      idempotent: options.idempotent !== false || this.#durable,
      transactionalId: options.producerName,
      // InitProducerId as a new producer (-1/-1, what Java's producer sends). The library's default, 0/0, reads as
      // "bump epoch of producer 0": for a transactional.id that already has a producer, every later session was
      // refused with PRODUCER_FENCED instead of fencing the old one.
      producerId: -1n,
      producerEpoch: -1,
      acks: ProduceAcks.ALL,
      compression: kafkaCompression(options.codec),
      autocreateTopics: false,
      ...RETRY,
    });
    countProduceRequests(producer.instanceId);
    return producer;
  }

  /** Produce requests sent so far, retries included, over every library session (what `crater produce` reports). */
  get requestsSent(): number {
    return this.#endedRequests + produceRequests(this.#producer.instanceId);
  }

  async #closeSession(producer: Producer): Promise<void> {
    await new Promise<void>((resolve) => producer.close(true, () => resolve()));
    this.#endedRequests += releaseProduceRequests(producer.instanceId);
  }

  /** A new library producer in place of one whose send failed; what the old one still had in flight is abandoned. */
  async #renew(): Promise<void> {
    const old = this.#producer;
    this.#producer = this.#newProducer();
    this.#chooser = new PartitionChooser(this.#producer);
    this.#stale = false;
    await this.#closeSession(old);
  }

  get transactionState(): BackendTransactionState {
    if (!this.#txn) return 'none';
    return this.#failed ? 'failed' : 'open';
  }

  /** Kafka's producer id and epoch once the producer has been initialised. */
  get identity(): { producerId: bigint; epoch: number } | undefined {
    const producerId = this.#producer.producerId;
    return producerId === undefined ? undefined : { producerId, epoch: this.#producer.producerEpoch ?? 0 };
  }

  async send(topic: string, record: ProducerRecord): Promise<ProduceAck> {
    const { acks } = await this.sendBatch(topic, [record]);
    return acks[0]!;
  }

  async sendBatch(topic: string, records: readonly ProducerRecord[]): Promise<BatchResult> {
    if (this.#closed) throw new UsageError('sendBatch on a closed producer');
    if (this.#txn && this.#failed) throw new UsageError('the transaction failed: only abortTransaction() is possible');
    return this.#queue.enqueue(topic, records);
  }

  /** One coalesced send (SendQueue calls it with nothing else in flight), in the transaction open at that moment. */
  async #sendNow(topic: string, records: readonly ProducerRecord[]): Promise<BatchResult> {
    const txn = this.#txn;
    if (txn && this.#failed) throw new UsageError('the transaction failed: only abortTransaction() is possible');
    if (!txn && this.#stale) await this.#renew();
    const send = (messages: MessageToProduce[]) =>
      txn ? txn.send({ messages, acks: ProduceAcks.ALL }) : this.#producer.send({ messages, acks: ProduceAcks.ALL });
    try {
      const sent = sendRecords(this.#chooser, send, topic, records, {
        codec: this.options.codec,
        partition: this.options.partition,
      });
      return txn
        ? await kafkaCall(`produce to ${topic} in a transaction`, () => sent, this.context.timeoutMs)
        : await sent;
    } catch (error) {
      if (txn) this.#failed = true;
      this.#stale = true;
      throw error;
    }
  }

  async beginTransaction(): Promise<void> {
    if (!this.#durable)
      throw new UsageError(
        'transactions need a durable producer: give the producer a producerName (Kafka transactional.id)',
      );
    if (this.#txn) throw new UsageError('a transaction is already open');
    if (this.#stale) await this.#renew();
    this.#txn = await kafkaCall('begin transaction', () => this.#producer.beginTransaction(), this.context.timeoutMs);
    this.#failed = false;
  }

  async commitTransaction(): Promise<void> {
    const txn = this.#open('commitTransaction');
    // Every send of the transaction has its answer before END_TXN (a queued one would land outside it).
    await this.#queue.drain();
    if (this.#failed) throw new UsageError('the transaction failed: only abortTransaction() is possible');
    try {
      await kafkaCall('commit transaction', () => txn.commit(), this.context.timeoutMs);
    } finally {
      this.#txn = undefined;
    }
  }

  async abortTransaction(): Promise<void> {
    const txn = this.#open('abortTransaction');
    this.#queue.failQueued(new UsageError('the transaction was aborted before this record was sent'));
    await this.#queue.drain();
    try {
      await kafkaCall('abort transaction', () => txn.abort(), this.context.timeoutMs);
    } finally {
      this.#txn = undefined;
      this.#failed = false;
    }
  }

  /**
   * TxnOffsetCommit for `group` without a live member of it in this process: generation -1 and no member id, the
   * form Kafka accepts from a producer that does not hold the group's assignment.
   */
  async sendOffsetsToTransaction(group: string, offsets: readonly BackendTransactionOffset[]): Promise<void> {
    const txn = this.#open('sendOffsetsToTransaction');
    if (offsets.length === 0) return;
    const [coordinator] = await kafkaCall(`find coordinator of ${group}`, () =>
      this.context.admin.findCoordinator({ keyType: FindCoordinatorKeyTypes.GROUP, keys: [group] }),
    );
    if (!coordinator) throw new UsageError(`no coordinator for group ${group}`);
    await kafkaCall(
      'add offsets to transaction',
      () => txn.addConsumer({ groupId: group } as Consumer),
      this.context.timeoutMs,
    );
    for (const o of offsets) {
      // The library commits message.offset + 1; the caller's offset is already the next record to read.
      const message = {
        topic: o.topic,
        partition: o.partition,
        offset: o.offset - 1n,
        metadata: { consumer: { groupId: group, generationId: -1, memberId: '', coordinatorId: coordinator.nodeId } },
      } as unknown as Message;
      await kafkaCall('commit offsets in transaction', () => txn.addOffset(message), this.context.timeoutMs);
    }
  }

  /** Waits until every record sent so far has its outcome. */
  async flush(): Promise<void> {
    await this.#queue.drain();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#txn) await this.abortTransaction().catch(() => undefined);
    // force: a send stuck on a dead broker must not keep close() waiting; Kafka aborts what it left open when the
    // next producer with the same transactional.id starts, or at transaction.timeout.ms.
    await this.#closeSession(this.#producer);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #open(what: string): Transaction {
    if (!this.#txn) throw new UsageError(`${what}: no transaction is open`);
    return this.#txn;
  }
}
