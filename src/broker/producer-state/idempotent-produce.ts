/**
 * The idempotent produce path shared by PRODUCE_IDEMPOTENT and idempotent PRODUCE_BATCH. The order of checks is
 * semantics.md §5's: NO_PRODUCER_ID (ERR 10), pid mismatch (ERR 8), batch size (ERR 14), epoch fence (ERR 50,
 * durable producers only), then the sequence table.
 *
 * A fresh request is crash-consistent for a durable producer: in one synchronous stretch it encodes the records,
 * predicts their offsets (offsets are deterministic: byte positions or counts from the LEO), appends the memo with
 * those predicted acks, then appends the data. A process killed in between leaves a memo naming records that are
 * missing or partly missing, never records that no memo names; replay.ts checks the last memo of each (pid, topic)
 * against the data at start and takes back what such a request left behind (semantics.md, Idempotence). The
 * in-memory state is updated at once (so pipelined requests see it); the reply waits for the data fsyncs and the
 * memo fsync, which run concurrently. When either fails the session is over (replay-check.ts): its state is marked
 * failed, so neither a replay nor a new sequence of it is acked until the producer starts a new session.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { Limits } from '../../protocol/limits.js';
import { BatchFlag } from '../../protocol/opcodes.js';
import type { ProduceBatch, ProduceBatchAck } from '../../protocol/messages/produce-batch.js';
import type { ProduceAck } from '../../protocol/messages/produce.js';
import { type BrokerCore, type OrderedReplies, SESSION_ORDERED_REPLIES } from '../core.js';
import { type ConnectionHandle, HandlerError } from '../handler.js';
import { publicErrorMessage } from '../public-message.js';
import {
  type AppendPlan,
  type IncomingRecord,
  type PreparedRecords,
  type TransactionalMarks,
  appendPrepared,
  checkCodec,
  planAppend,
  prepareRecords,
  preparedBatches,
  syncAll,
} from '../produce-path.js';
import { nextOffsets } from '../../storage/partition-log.js';
import { holdReads } from '../read-ceiling.js';
import type { Topic } from '../topics.js';
import { checkReplay, failSession, sessionFailed } from './replay-check.js';
import { type ProducerBinding, bindingOf, stateFor } from './binding.js';
import {
  INITIAL_STATE,
  type SequenceState,
  afterBatch,
  afterSingle,
  checkBatch,
  checkSingle,
  lastSeqOf,
  nextSeq,
  windowedDuplicate,
} from './sequence-table.js';

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
    throw new HandlerError(
      ErrorCode.BAD_PROTOCOL,
      `pid ${producerId} does not match this connection's producer id ${binding.producerId}`,
    );
  }
  return binding;
}

/** Durable producers only: any epoch other than the current one is fenced (not merely an older one). */
export function fence(binding: ProducerBinding, epoch: number): void {
  const producer = binding.durable;
  if (producer && epoch !== producer.epoch) {
    throw new HandlerError(
      ErrorCode.PRODUCER_FENCED,
      `producer epoch ${epoch} is fenced: the current epoch is ${producer.epoch}`,
    );
  }
}

function outOfOrder(state: SequenceState | undefined, what: string): HandlerError {
  const last = state?.lastSeq ?? -1;
  return new HandlerError(
    ErrorCode.OUT_OF_ORDER_SEQUENCE,
    `${what} out of order: last sequence is ${last}, expected ${nextSeq(last)}`,
  );
}

function replyAfter<T>(
  conn: ConnectionHandle,
  work: Promise<T>,
  reply: (value: T) => void,
  op: number,
  correl: Buffer,
): Promise<void> | undefined {
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
  plan: AppendPlan,
  marks: TransactionalMarks | undefined,
): Applied {
  const topicName = topic.name;
  const runtime = broker.producerState;
  const previous = stateFor(binding, topicName);
  const prepared = prepareRecords(broker, codec, records, plan, marks);
  const predicted = predictAcks(topic, plan, prepared);
  if (predicted.length === 0) throw new HandlerError(ErrorCode.INTERNAL, prepared.error?.message ?? 'append failed');
  // From the prediction to the last append nothing awaits, so no other request appends to these partitions in
  // between: the memo names exactly the offsets the data gets, and it is in the log before any of the data.
  let memo = persistMemo(runtime, binding, topicName, nextState(predicted));
  if (memo.failed) throw new HandlerError(ErrorCode.INTERNAL, memoFailure(memo.failed, broker.dataDir));
  runtime.crashPoint('after-memo-before-data');
  let first = true;
  const outcome = appendPrepared(broker, topic, plan, prepared, () => {
    if (first) runtime.crashPoint('mid-batch-data');
    first = false;
  });
  const { acks } = outcome;
  const mismatch = acks.findIndex(
    (a, i) => a.partition !== predicted[i]!.partition || a.offset !== predicted[i]!.offset,
  );
  const error = mismatch >= 0 ? predictionFailed(broker, topicName, mismatch, predicted, acks) : outcome.error;
  let state: SequenceState | undefined;
  if (mismatch >= 0 || acks.length < predicted.length) {
    // The memo claims records that did not land where it says: a later memo for what did land replaces it (the last
    // record per key wins on replay); with nothing landed, the state before this request is put back.
    state = acks.length > 0 ? nextState(acks) : undefined;
    const correction = persistMemo(
      runtime,
      binding,
      topicName,
      state ?? previous ?? nothingLanded(binding, nextState(predicted)),
    );
    memo = { done: Promise.all([memo.done, correction.done]).then(([a, b]) => a ?? b), failed: correction.failed };
  } else {
    state = nextState(acks);
  }
  if (acks.length === 0) throw new HandlerError(ErrorCode.INTERNAL, error?.message ?? 'append failed');
  const synced = syncAll(outcome.toSync);
  if (outcome.toSync.length > 0) holdReadsUntil(topic, acks, synced);
  const work = startSyncs(binding, topicName, state!, synced, memo);
  return { acks, error, work };
}

/** The error for a record that did not land at the offset its memo names (logged: it should never happen). */
function predictionFailed(
  broker: BrokerCore,
  topicName: string,
  index: number,
  predicted: readonly ProduceAck[],
  acks: readonly ProduceAck[],
): Error {
  const want = predicted[index]!;
  const got = acks[index]!;
  const error = new Error(
    `record ${index} landed at ${got.partition}@${got.offset}, not at the memoized ${want.partition}@${want.offset}`,
  );
  broker.logger.error('idempotent produce: offset prediction failed', { topic: topicName, error: error.message });
  return error;
}

/**
 * Records `written` as the topic's state and joins the data fsyncs (`synced`) and the memo's. The returned work
 * resolves with the memo's failure (if any) and rejects on a data fsync failure; either failure ends the session.
 */
function startSyncs(
  binding: ProducerBinding,
  topicName: string,
  written: SequenceState,
  synced: Promise<void>,
  memo: MemoWrite,
): Promise<unknown> {
  const memoDone = memo.failed ? Promise.resolve(memo.failed) : memo.done;
  const work = Promise.all([synced, memoDone]).then(([, memoError]) => memoError);
  written.durable = work.then(
    (memoError) => {
      if (memoError) failSession(binding, topicName, written);
    },
    () => failSession(binding, topicName, written),
  );
  binding.topics.set(topicName, written);
  return work;
}

/**
 * Start-up replay takes back a request none of whose parts may be missing (verify-memos.ts), so no consumer reads
 * any of it, in any partition, before every data fsync of it has ended (read-ceiling.ts).
 */
function holdReadsUntil(topic: Topic, acks: readonly ProduceAck[], synced: Promise<void>): void {
  const first = new Map<number, bigint>();
  for (const { partition, offset } of acks) {
    const seen = first.get(partition);
    if (seen === undefined || offset < seen) first.set(partition, offset);
  }
  const releases = [...first].map(([partition, offset]) => holdReads(topic.partitions[partition - 1]!, offset));
  const release = (): void => releases.forEach((r) => r());
  synced.then(release, release);
}

/** The acks the prepared records get if appended now, in list order (a prefix when some cannot be stored). */
function predictAcks(topic: Topic, plan: AppendPlan, prepared: PreparedRecords): ProduceAck[] {
  const offsets = new Array<bigint>(prepared.bound);
  for (const [p, { indexes, batch }] of preparedBatches(plan, prepared)) {
    const predicted = nextOffsets(topic.partitions[p - 1]!, batch);
    indexes.forEach((i, j) => (offsets[i] = predicted[j]!));
  }
  return offsets.map((offset, i) => ({ partition: plan.assigned[i]!, offset }));
}

/** "No request landed" in the binding's epoch: the sequence before the request, no ack (runtime.ts, NO_ACK). */
function nothingLanded(binding: ProducerBinding, attempted: SequenceState): SequenceState {
  const firstSeq = attempted.batch ? attempted.batch.baseSeq : attempted.lastSeq;
  return { lastSeq: firstSeq === 0 ? -1 : firstSeq - 1, epoch: binding.epoch, lastAck: undefined, batch: undefined };
}

interface MemoWrite {
  /** Settles with the memo's sync failure, if any. */
  done: Promise<unknown>;
  /** Set when the append itself failed. */
  failed?: unknown;
}

function persistMemo(
  runtime: BrokerCore['producerState'],
  binding: ProducerBinding,
  topic: string,
  state: SequenceState,
): MemoWrite {
  try {
    const done =
      runtime.persist(binding, topic, state)?.then(
        () => undefined,
        (err: unknown) => err,
      ) ?? Promise.resolve(undefined);
    return { done };
  } catch (err) {
    return { done: Promise.resolve(err), failed: err };
  }
}

/** Cleaned like every other error reply (public-message.ts): a memo's fsync failure names its file otherwise. */
function memoFailure(err: unknown, dataDir: string): string {
  return `producer state not persisted: ${publicErrorMessage(err, dataDir)}`;
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
    throw new HandlerError(
      ErrorCode.BATCH_TOO_LARGE,
      `idempotent batch of ${count} records: at most ${Limits.idempotentBatchRecords}`,
    );
  }
  fence(binding, request.epoch!);
  const baseSeq = request.baseSeq!;
  const state = stateFor(binding, request.topic);
  // BATCH_FLAG_WINDOW (crater, docs/extensions.md): the last WINDOW_BATCHES batches are duplicates, not only the last.
  const windowed = (request.flags & BatchFlag.WINDOW) !== 0;
  const sequence = { baseSeq, count, windowed };
  const { outcome } = checkBatch(state, sequence);
  if (outcome === 'session-failed') throw sessionFailed();
  if (outcome === 'out-of-order') throw outOfOrder(state, `batch base ${baseSeq}..${lastSeqOf(baseSeq, count)}`);
  if (outcome === 'replay' || outcome === 'replay-window') {
    const memo =
      outcome === 'replay' ? { ...state!.batch!, durable: state!.durable } : windowedDuplicate(state!, sequence)!;
    const acks = [...memo.acks];
    const checked = checkReplay(broker, request.topic, { durable: memo.durable }, acks, state);
    return replyAfter(conn, checked, () => send({ acks, errorCode: ErrorCode.NONE, errorMessage: '' }), op, correl);
  }
  const epoch = binding.epoch;
  const previous = windowed ? (state ?? INITIAL_STATE) : undefined;
  const applied = apply(broker, conn, binding, request.topic, request.codec, request.records, (a) =>
    afterBatch(baseSeq, epoch, a, previous),
  );
  const respond = ({ acks, error, work }: Applied): Promise<void> | undefined =>
    replyAfter(
      conn,
      work,
      (memoError) => {
        if (error) {
          send({
            acks,
            errorCode: ErrorCode.INTERNAL,
            errorMessage: `${acks.length} of ${count} records appended: ${publicErrorMessage(error, broker.dataDir)}`,
          });
        } else if (memoError) {
          send({ acks, errorCode: ErrorCode.INTERNAL, errorMessage: memoFailure(memoError, broker.dataDir) });
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
  if (outcome === 'session-failed') throw sessionFailed();
  if (outcome === 'out-of-order') throw outOfOrder(state, `sequence ${request.seq}`);
  if (outcome === 'replay') {
    const ack = state!.lastAck!;
    const checked = checkReplay(broker, request.topic, state!, [ack]);
    return replyAfter(conn, checked, () => send({ partition: ack.partition, offset: ack.offset }), op, correl);
  }
  const epoch = binding.epoch;
  const applied = apply(broker, conn, binding, request.topic, request.codec, [request], (a) =>
    afterSingle(request.seq, epoch, a[0]!),
  );
  const respond = ({ acks, work }: Applied): Promise<void> | undefined => {
    const failIfMemoLost = work.then((memoError) => {
      if (memoError)
        throw new HandlerError(
          ErrorCode.INTERNAL,
          `record appended at ${acks[0]!.offset}, but ${memoFailure(memoError, broker.dataDir)}`,
        );
    });
    return replyAfter(conn, failIfMemoLost, () => send(acks[0]!), op, correl);
  };
  return applied instanceof Promise ? applied.then(respond) : respond(applied);
}
