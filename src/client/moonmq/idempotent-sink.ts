/**
 * An idempotent producer (semantics.md §5): INIT_PRODUCER_ID once, then every record carries (pid, seq, epoch)
 * with one sequence counter per topic.
 *
 * On a crater broker, outside transactions, batches of encoded entries go several per topic at once over the
 * idempotent window (idempotent-window.ts: sequences given when written). Everything else goes one request at a
 * time, and the counter advances by the acks received (wire.md §13.5): after a partial batch the resend of the
 * tail starts at last + 1. A lost reply is resent with the same sequence and answered with the memoized acks;
 * across a new connection that needs the same session, which a named producer resumes on a crater broker
 * (init-producer-id.ts). Where it cannot (an ephemeral producer, a broker that is not crater, a session fenced
 * meanwhile) the send fails with a ConnectionError saying its outcome is unknown, and the next send starts a new
 * session. After a broker error the error-code table alone decides (idempotent-rules.ts): a retriable code resends
 * the same sequence; a code that may have left state for the sequence ends the session (inside a transaction once
 * it has ended); 'keep' codes leave the sequence for the next record.
 */
import { BrokerError, ConnectionError, CraterError, UsageError } from '../../errors.js';
import { Caps, Limits } from '../../protocol/limits.js';
import { InitProducerIdRequest, ProducerIdReply } from '../../protocol/messages/init-producer-id.js';
import { ProduceAckReply } from '../../protocol/messages/produce.js';
import { ProduceBatchAckReply, ProduceBatchRequest } from '../../protocol/messages/produce-batch.js';
import { ProduceIdempotentRequest } from '../../protocol/messages/produce-idempotent.js';
import { BatchFlag } from '../../protocol/opcodes.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './connection.js';
import type { BatchFraming, EncodedEntries, ProduceSink, SendOptions, SinkTransactions } from '../producer/sink.js';
import { ChunkedEntryWriter, EncodedProduceBatchRequest, moonmqFraming } from './batch-entries.js';
import {
  type BatchResult,
  type ProduceAck,
  type ProducerRecord,
  batchResult,
  codecId,
  encodedFrameSize,
  prepareBatch,
  requireHeaderSupport,
  toBuffer,
} from './produce-ops.js';
import type { Session } from './session.js';
import { validateBatchCount, validateBytes, validateString, validateTopicName } from '../validate.js';
import {
  type Current,
  IdempotentWindow,
  type ProducerIdentity,
  WINDOW_IN_FLIGHT,
  sendWindowed,
} from './idempotent-window.js';
import { connectWithRetries, sessionAfterError, withRetries } from './idempotent-rules.js';
import { sinkTransactions } from './idempotent-transactions.js';

export type { ProducerIdentity } from './idempotent-window.js';
export { resendAfterError, sessionAfterError } from './idempotent-rules.js';

export interface IdempotentSinkOptions {
  /** Empty or absent: an ephemeral producer (state on the connection only); a name: durable, fenced by epoch. */
  producerName?: string | undefined;
  /** Opens a new session after the connection was lost; without it a lost connection fails the send. */
  reconnect?: (() => Promise<Session>) | undefined;
  /** Resends of one request after lost replies (default 5). */
  maxRetries?: number | undefined;
  /** Connection attempts per reconnect, with a pause growing from 50 ms to 1 s between them (default 20). */
  reconnectAttempts?: number | undefined;
}

const U32 = 0x1_0000_0000;
const FRAMING = moonmqFraming(true);
const DEFAULT_MAX_RETRIES = 5;
const DEFAULT_RECONNECT_ATTEMPTS = 20;

export class IdempotentSink implements ProduceSink {
  readonly framing: BatchFraming = FRAMING;
  readonly idempotent = true;
  readonly defaultRequestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS;
  private session: Session | undefined;
  private identity: ProducerIdentity | undefined;
  private readonly nextSeq = new Map<string, number>();
  private tail: Promise<unknown> = Promise.resolve();
  private readonly producerName: string;
  private closed = false;
  /** A broker error ended the session while a transaction held it: the new session starts once it has ended. */
  private sessionSpent = false;
  /**
   * Set while a transaction is open (transaction.ts): a lost connection then fails the request instead of resuming
   * on a new one, because the broker aborts a dropped connection's transaction and a resent record would land
   * outside it.
   */
  holdSession = false;
  /** Counts the producer sessions (INIT_PRODUCER_ID) this sink started; the window tells stale requests by it. */
  private sessions = 0;
  private resuming: Promise<Current> | undefined;
  private readonly window = new IdempotentWindow({
    ready: () => this.ready(),
    resume: (from, cause) => this.resumeShared(from, cause),
    generation: () => this.sessions,
    endSession: () => this.endSession(),
    assign: (topic, count) => {
      const seq = this.sequenceFor(topic);
      this.advance(topic, count);
      return seq;
    },
    maxRetries: () => this.options.maxRetries ?? DEFAULT_MAX_RETRIES,
  });

  /**
   * `borrowed` (a client's connection) is used until it is lost and is never closed here; sessions opened through
   * `options.reconnect` belong to the sink and close with it.
   */
  constructor(
    private readonly borrowed: Session | undefined,
    private readonly options: IdempotentSinkOptions = {},
  ) {
    this.producerName = options.producerName ?? '';
    validateString('producer name', this.producerName, Caps.producerName);
    if (!borrowed && !options.reconnect)
      throw new UsageError('an idempotent producer needs a session or a way to open one');
    this.session = borrowed;
  }

  /**
   * 5 on a crater broker (the idempotent window, docs/extensions.md) outside a transaction, else 1: MoonMQ
   * remembers only the last batch of a (pid, topic), so a second batch in flight could not be deduplicated.
   */
  get inFlightPerTopic(): number {
    return this.windowed() ? WINDOW_IN_FLIGHT : 1;
  }

  private windowed(): boolean {
    const session = this.session;
    return session !== undefined && !session.conn.closed && session.server.isCrater && !this.holdSession;
  }

  /** The producer id and epoch of the current session, once the first send initialised it. */
  get producerIdentity(): ProducerIdentity | undefined {
    return this.identity && { ...this.identity };
  }

  /** True for a named (durable) producer, the only kind that can run transactions. */
  get durable(): boolean {
    return this.producerName !== '';
  }

  /**
   * Runs `request` on the current session in order with sends (after INIT_PRODUCER_ID when needed); with `retry`,
   * a lost reply is resent as sends are, on a resumed session once the connection is gone.
   */
  exclusive<T>(request: (session: Session, id: ProducerIdentity) => Promise<T>, retry: boolean): Promise<T> {
    return this.serial(async () => {
      const current = await this.ready();
      return retry ? this.withRetries(current, request) : request(current.session, current.id);
    });
  }

  /** The sequence the next record to `topic` gets. */
  sequenceFor(topic: string): number {
    return this.nextSeq.get(topic) ?? 0;
  }

  send(topic: string, record: ProducerRecord, options: SendOptions): Promise<ProduceAck> {
    validateTopicName(topic);
    if (record.headers && record.headers.length > 0) {
      throw new UsageError('PRODUCE_IDEMPOTENT carries no headers; send a record with headers through sendBatch');
    }
    const key = toBuffer(record.key);
    const value = toBuffer(record.value);
    validateBytes('key', key);
    validateBytes('value', value);
    const codec = codecId(options.codec);
    return this.serial(async () => {
      const current = await this.ready();
      const seq = this.sequenceFor(topic);
      const ack = await this.withRetries(current, (session, id) =>
        session.conn.request(ProduceIdempotentRequest, { ...id, seq, codec, topic, key, value }, ProduceAckReply, {
          timeoutMs: options.timeoutMs,
        }),
      );
      this.advance(topic, 1);
      return ack;
    });
  }

  sendBatch(topic: string, records: readonly ProducerRecord[], options: SendOptions): Promise<BatchResult> {
    validateTopicName(topic);
    validateBatchCount(records.length, Limits.idempotentBatchRecords);
    const prepared = prepareBatch(records);
    const codec = codecId(options.codec);
    const flags = BatchFlag.IDEMPOTENT | (prepared.withHeaders ? BatchFlag.HEADERS : 0);
    return this.sequenced(topic, prepared.withHeaders, (session, id, baseSeq) =>
      session.conn.request(
        ProduceBatchRequest,
        { flags, codec, topic, ...id, baseSeq, records: prepared.records },
        ProduceBatchAckReply,
        { timeoutMs: options.timeoutMs },
      ),
    );
  }

  sendEntries(topic: string, entries: EncodedEntries, options: SendOptions): Promise<BatchResult> {
    validateTopicName(topic);
    validateBatchCount(entries.count, Limits.idempotentBatchRecords);
    const codec = codecId(options.codec);
    if (this.windowed() && !this.closed)
      return sendWindowed(this.window, topic, entries, codec, options, () => this.tail);
    const flags = BatchFlag.IDEMPOTENT | (entries.withHeaders ? BatchFlag.HEADERS : 0);
    return this.sequenced(topic, entries.withHeaders, (session, id, baseSeq) => {
      const message = { flags, codec, topic, ...id, baseSeq, entries };
      return session.conn.request(EncodedProduceBatchRequest, message, ProduceBatchAckReply, {
        timeoutMs: options.timeoutMs,
        sizeHint: encodedFrameSize(message),
      });
    });
  }

  entryWriter(): ChunkedEntryWriter {
    return new ChunkedEntryWriter();
  }

  /** BEGIN_TXN, TXN_OFFSET_COMMIT and END_TXN on this sink's session, in order with its sends. */
  transactions(): SinkTransactions {
    if (!this.durable) throw new UsageError('transactions need a durable producer: give the producer a producerName');
    return sinkTransactions(this);
  }

  /** One idempotent batch at the topic's next sequence, resent after a lost reply. */
  private sequenced(
    topic: string,
    withHeaders: boolean,
    request: (
      session: Session,
      id: ProducerIdentity,
      baseSeq: number,
    ) => Promise<{ acks: ProduceAck[]; errorCode: number; errorMessage: string }>,
  ): Promise<BatchResult> {
    return this.serial(async () => {
      const current = await this.ready();
      const baseSeq = this.sequenceFor(topic);
      const ack = await this.withRetries(current, (session, id) => {
        if (withHeaders) requireHeaderSupport(session);
        return request(session, id, baseSeq);
      });
      this.advance(topic, ack.acks.length);
      if (ack.errorCode !== 0) this.afterBrokerError(ack.errorCode);
      return batchResult(ack);
    });
  }

  async flush(): Promise<void> {
    await this.tail;
    await this.window.idle();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
    const session = this.session;
    this.session = undefined;
    if (session && session !== this.borrowed) await session.conn.close();
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new UsageError('send on a closed idempotent producer'));
    const run = this.tail.then(() => this.window.idle()).then(fn);
    this.tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** The transaction that held the session has ended: a session a broker error spent is replaced now. */
  transactionEnded(): void {
    if (!this.sessionSpent) return;
    this.sessionSpent = false;
    this.endSession();
  }

  /** The next request starts a new producer session (INIT_PRODUCER_ID: a new epoch, sequences from 0). */
  private endSession(): void {
    this.identity = undefined;
    this.sessions += 1;
  }

  /** Applies the error-code table's producer rule after the broker answered `code`. */
  private afterBrokerError(code: number): void {
    const next = sessionAfterError(code, this.holdSession);
    if (next === 'new-session-after-transaction') this.sessionSpent = true;
    else if (next === 'new-session') this.endSession();
  }

  private advance(topic: string, n: number): void {
    this.nextSeq.set(topic, (this.sequenceFor(topic) + n) % U32);
  }

  /**
   * Runs one request, resending it after a lost reply (on the same connection while it is open, else on a new one
   * that resumed the same session) or a retriable broker error. Any other broker error is final; the table's
   * producer rule then says whether the session survives it.
   */
  private withRetries<T>(
    current: Current,
    request: (session: Session, id: ProducerIdentity) => Promise<T>,
  ): Promise<T> {
    return withRetries(current, request, {
      maxRetries: this.options.maxRetries ?? DEFAULT_MAX_RETRIES,
      afterBrokerError: (code) => this.afterBrokerError(code),
      holdSession: () => this.holdSession,
      resume: (from, cause) => this.resumeShared(from, cause),
    });
  }

  /** The current session and identity: a new connection and a new producer session after an unrecoverable loss. */
  private async ready(): Promise<{ session: Session; id: ProducerIdentity }> {
    if (!this.session || this.session.conn.closed) {
      if (this.holdSession)
        throw new ConnectionError('the connection was lost, and the broker aborts the open transaction with it');
      if (!this.options.reconnect) throw new ConnectionError('the idempotent producer lost its connection');
      // A durable producer keeps its session (and sequences) when the broker lets it resume; else a new one starts.
      if (this.identity && this.producerName !== '') {
        try {
          return await this.resumeShared(
            this.session!,
            new ConnectionError('the connection was lost between requests'),
          );
        } catch (error) {
          if (!(error instanceof ConnectionError) || this.session === undefined || this.session.conn.closed)
            throw error;
        }
      } else {
        await this.replaceSession();
      }
      this.endSession();
    }
    const session = this.session!;
    if (!this.identity) {
      this.identity = await session.conn.request(
        InitProducerIdRequest,
        { producerName: this.producerName },
        ProducerIdReply,
      );
      this.nextSeq.clear();
      this.sessions += 1;
    }
    return { session, id: this.identity };
  }

  /** resume(), once for every request that lost `from`; the session that replaced it when that already happened. */
  private resumeShared(from: Session, cause: CraterError): Promise<Current> {
    const current = this.session;
    if (current && current !== from && !current.conn.closed && this.identity)
      return Promise.resolve({ session: current, id: this.identity });
    if (!this.identity)
      return Promise.reject(
        new ConnectionError('connection lost with a request in flight whose outcome is unknown', { cause }),
      );
    this.resuming ??= this.resume(cause).finally(() => {
      this.resuming = undefined;
    });
    return this.resuming;
  }

  /** After the connection dropped mid-request: a new connection bound to the same (pid, epoch), or an error. */
  private async resume(cause: CraterError): Promise<{ session: Session; id: ProducerIdentity }> {
    const id = this.identity!;
    const unknown = (why: string): ConnectionError => {
      this.endSession();
      return new ConnectionError(`connection lost with a request in flight whose outcome is unknown: ${why}`, {
        cause,
      });
    };
    if (!this.options.reconnect) throw unknown('no way to reconnect');
    if (this.producerName === '')
      throw unknown('an ephemeral producer cannot resume its sequences on a new connection');
    await this.replaceSession();
    const session = this.session!;
    if (!session.server.isCrater) throw unknown(`${session.conn.label} cannot resume a producer session`);
    try {
      const resumed = await session.conn.request(
        InitProducerIdRequest,
        { producerName: this.producerName, resume: id },
        ProducerIdReply,
      );
      if (resumed.producerId !== id.producerId || resumed.epoch !== id.epoch)
        throw unknown('the broker started a new session');
      return { session, id };
    } catch (error) {
      if (error instanceof BrokerError) throw unknown(error.message);
      throw error;
    }
  }

  /** Opens a new session, retrying while the broker is unreachable (a restart), with a growing pause. */
  private async replaceSession(): Promise<void> {
    const old = this.session;
    this.session = undefined;
    if (old && old !== this.borrowed) old.conn.destroy();
    this.session = await connectWithRetries(
      this.options.reconnect!,
      this.options.reconnectAttempts ?? DEFAULT_RECONNECT_ATTEMPTS,
    );
  }
}
