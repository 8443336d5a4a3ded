/**
 * The idempotent produce path shared by PRODUCE_IDEMPOTENT and idempotent PRODUCE_BATCH. The order of checks is
 * semantics.md §5's: NO_PRODUCER_ID (ERR 10), pid mismatch (ERR 8), batch size (ERR 14), epoch fence (ERR 50,
 * durable producers only), then the sequence table. A fresh request appends through the ordinary produce path,
 * updates the in-memory state at once (so pipelined requests see it) and, for a durable producer, appends the memo;
 * the reply waits for the data fsyncs and the memo fsync, which run concurrently.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { Limits } from '../../protocol/limits.js';
import type { ProduceBatch, ProduceBatchAck } from '../../protocol/messages/produce-batch.js';
import type { ProduceAck } from '../../protocol/messages/produce.js';
import { type BrokerCore, type OrderedReplies, SESSION_ORDERED_REPLIES } from '../core.js';
import { type ConnectionHandle, HandlerError } from '../handler.js';
import { type IncomingRecord, type TransactionalMarks, appendPlanned, checkCodec, planAppend, syncAll } from '../produce-path.js';
import type { Topic } from '../topics.js';
import { type ProducerBinding, bindingOf, stateFor } from './runtime.js';
import { type SequenceState, afterBatch, afterSingle, checkBatch, checkSingle, lastSeqOf, nextSeq } from './sequence-table.js';

export interface IdempotentHeader {
  producerId: bigint;
  epoch: number;
}

/** ERR 10 without INIT_PRODUCER_ID on this connection, ERR 8 for another pid. */
export function requireBinding(conn: ConnectionHandle, producerId: bigint): ProducerBinding {
  const binding = bindingOf(conn);
  if (!binding) {
    throw new HandlerError(ErrorCode.NO_PRODUCER_ID, 'no producer id on this connection: send INIT_PRODUCER_ID first');
  }
  if (binding.producerId !== producerId) {
    throw new HandlerError(ErrorCode.BAD_PROTOCOL, `pid ${producerId} does not match this connection's producer id ${binding.producerId}`);
  }
  return binding;
}

/** Durable producers only: any epoch other than the current one is fenced (not merely an older one). */
export function fence(binding: ProducerBinding, epoch: number): void {
  const producer = binding.durable;
  if (producer && epoch !== producer.epoch) {
    throw new HandlerError(ErrorCode.PRODUCER_FENCED, `producer epoch ${epoch} is fenced: the current epoch is ${producer.epoch}`);
  }
}

function outOfOrder(state: SequenceState | undefined, what: string): HandlerError {
  const last = state?.lastSeq ?? -1;
  return new HandlerError(ErrorCode.OUT_OF_ORDER_SEQUENCE, `${what} out of order: last sequence is ${last}, expected ${nextSeq(last)}`);
}

function replyAfter<T>(conn: ConnectionHandle, work: Promise<T>, reply: (value: T) => void, op: number, correl: Buffer): Promise<void> | undefined {
  const ordered = conn.session.get(SESSION_ORDERED_REPLIES) as OrderedReplies | undefined;
  if (ordered) return ordered.after(work, reply, op, correl);
  return work.then(reply);
}

interface Applied {
  acks: ProduceAck[];
  error: Error | undefined;
  /** Data fsyncs, then the memo's: resolves with the memo's failure (if any), rejects on a data fsync failure. */
  work: Promise<unknown>;
}

/**
 * Appends fresh records, records the new state and starts the data and memo syncs together. Inside the
 * connection's transaction the records are transactional, and partitions the transaction has not touched yet are
 * enrolled (persisted) first: the result is then a promise, and the handler holds later frames until it settles.
 */
function apply(
  broker: BrokerCore,
  conn: ConnectionHandle,
  binding: ProducerBinding,
  topicName: string,
  codec: number,
  records: readonly IncomingRecord[],
  nextState: (acks: ProduceAck[]) => SequenceState,
): Applied | Promise<Applied> {
  checkCodec(codec);
  const topic = broker.topics.requireTopic(topicName);
  const txn = broker.transactions.activeFor(conn, binding);
  const plan = planAppend(broker, topic, records);
  if (!txn) return write(broker, binding, topic, codec, records, nextState, plan, undefined);
  const marks = { producerId: binding.producerId, epoch: binding.epoch };
  const partitions = [...plan.groups.keys()].map((partition) => ({ partition, log: topic.partitions[partition - 1]! }));
  const enrolled = broker.transactions.enrol(txn, topicName, partitions);
  if (!enrolled) return write(broker, binding, topic, codec, records, nextState, plan, marks);
  return enrolled.then(() => write(broker, binding, topic, codec, records, nextState, plan, marks));
}

function write(
  broker: BrokerCore,
  binding: ProducerBinding,
  topic: Topic,
  codec: number,
  records: readonly IncomingRecord[],
  nextState: (acks: ProduceAck[]) => SequenceState,
  plan: ReturnType<typeof planAppend>,
  marks: TransactionalMarks | undefined,
): Applied {
  const topicName = topic.name;
  const { acks, error, toSync } = appendPlanned(broker, topic, codec, records, plan, marks);
  if (acks.length === 0) throw new HandlerError(ErrorCode.INTERNAL, error?.message ?? 'append failed');
  const state = nextState(acks);
  let memo: Promise<unknown>;
  try {
    memo = broker.producerState.persist(binding, topicName, state)?.then(() => undefined, (err: unknown) => err) ?? Promise.resolve(undefined);
  } catch (err) {
    memo = Promise.resolve(err);
  }
  const data = syncAll(toSync);
  const work = Promise.all([data, memo]).then(([, memoError]) => memoError);
  state.durable = work.then(() => undefined, () => undefined);
  binding.topics.set(topicName, state);
  return { acks, error, work };
}

function memoFailure(err: unknown): string {
  return `producer state not persisted: ${err instanceof Error ? err.message : String(err)}`;
}

export function produceIdempotentBatch(
  broker: BrokerCore,
  conn: ConnectionHandle,
  request: ProduceBatch,
  op: number,
  correl: Buffer,
  send: (reply: ProduceBatchAck) => void,
): Promise<void> | undefined {
  const binding = requireBinding(conn, request.producerId!);
  const count = request.records.length;
  if (count > Limits.idempotentBatchRecords) {
    throw new HandlerError(ErrorCode.BATCH_TOO_LARGE, `idempotent batch of ${count} records: at most ${Limits.idempotentBatchRecords}`);
  }
  fence(binding, request.epoch!);
  const baseSeq = request.baseSeq!;
  const state = stateFor(binding, request.topic);
  const { outcome } = checkBatch(state, { baseSeq, count });
  if (outcome === 'out-of-order') throw outOfOrder(state, `batch base ${baseSeq}..${lastSeqOf(baseSeq, count)}`);
  if (outcome === 'replay') {
    const acks = [...state!.batch!.acks];
    return replyAfter(conn, state!.durable ?? Promise.resolve(), () => send({ acks, errorCode: ErrorCode.NONE, errorMessage: '' }), op, correl);
  }
  const epoch = binding.epoch;
  const applied = apply(broker, conn, binding, request.topic, request.codec, request.records, (a) => afterBatch(baseSeq, epoch, a));
  const respond = ({ acks, error, work }: Applied): Promise<void> | undefined => replyAfter(
    conn,
    work,
    (memoError) => {
      if (error) {
        send({ acks, errorCode: ErrorCode.INTERNAL, errorMessage: `${acks.length} of ${count} records appended: ${error.message}` });
      } else if (memoError) {
        send({ acks, errorCode: ErrorCode.INTERNAL, errorMessage: memoFailure(memoError) });
      } else {
        send({ acks, errorCode: ErrorCode.NONE, errorMessage: '' });
      }
    },
    op,
    correl,
  );
  return applied instanceof Promise ? applied.then(respond) : respond(applied);
}

export interface IdempotentRecord extends IdempotentHeader {
  seq: number;
  codec: number;
  topic: string;
  key: Buffer;
  value: Buffer;
}

export function produceIdempotentSingle(
  broker: BrokerCore,
  conn: ConnectionHandle,
  request: IdempotentRecord,
  op: number,
  correl: Buffer,
  send: (ack: ProduceAck) => void,
): Promise<void> | undefined {
  const binding = requireBinding(conn, request.producerId);
  fence(binding, request.epoch);
  const state = stateFor(binding, request.topic);
  const { outcome } = checkSingle(state, { seq: request.seq });
  if (outcome === 'out-of-order') throw outOfOrder(state, `sequence ${request.seq}`);
  if (outcome === 'replay') {
    const ack = state!.lastAck!;
    return replyAfter(conn, state!.durable ?? Promise.resolve(), () => send({ partition: ack.partition, offset: ack.offset }), op, correl);
  }
  const epoch = binding.epoch;
  const applied = apply(broker, conn, binding, request.topic, request.codec, [request], (a) => afterSingle(request.seq, epoch, a[0]!));
  const respond = ({ acks, work }: Applied): Promise<void> | undefined => {
    const failIfMemoLost = work.then((memoError) => {
      if (memoError) throw new HandlerError(ErrorCode.INTERNAL, `record appended at ${acks[0]!.offset}, but ${memoFailure(memoError)}`);
    });
    return replyAfter(conn, failIfMemoLost, () => send(acks[0]!), op, correl);
  };
  return applied instanceof Promise ? applied.then(respond) : respond(applied);
}
