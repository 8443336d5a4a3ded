/**
 * Several idempotent batches per topic in flight, over crater's idempotent window (BATCH_FLAG_WINDOW,
 * docs/extensions.md): the broker remembers the last WINDOW_BATCHES batches of each (pid, topic) instead of the last
 * one only, so a batch resent after a lost reply is answered with its stored acks even when later batches landed.
 *
 * Sequences are given when a batch is written to the socket (not when it is acked), in the order the accumulator
 * sends, and a batch's requests are written in that order. The broker appends a batch only at last + 1, so nothing
 * lands out of order: a batch behind one that was refused gets ERR 11, and is resent once the batches before it in
 * the same session have settled. A resend is always the same sequence, so it is either a duplicate (replayed) or
 * next in line (appended); what cannot be resent that way ends the session (each code's rule is the error-code
 * table's, protocol/error-codes.ts):
 *
 *   acked whole                            done
 *   lost reply                             resent on the same connection, or on a resumed one (durable producer);
 *                                          no resume: a ConnectionError (outcome unknown), and a new session
 *   resendAfterEarlier (ERR 11: behind     resent after the batches before it settled, up to maxRetries, while the
 *   an unsettled batch)                    session lasts
 *   retriable (ERR 6, ERR 20)              resent after a pause, up to maxRetries, while the session lasts
 *   anything else (a partial append, a     the session ends (its sequences have a gap now): the result or error goes
 *   fatal code, retries exhausted)         to the caller, and the batches behind it come back "not appended" (ERR 7
 *                                          with no acks), which the accumulator resends, in their first order, on the
 *                                          next session
 */
import { BrokerError, ConnectionError, type CraterError } from '../../errors.js';
import { type Current, isLostReply } from './idempotent-rules.js';

export type { Current, ProducerIdentity } from './idempotent-rules.js';
import { ErrorCode, errorRule } from '../../protocol/error-codes.js';
import { ProduceBatchAckReply } from '../../protocol/messages/produce-batch.js';
import { BatchFlag } from '../../protocol/opcodes.js';
import type { EncodedEntries, SendOptions } from '../producer/sink.js';
import { EncodedProduceBatchRequest } from './batch-entries.js';
import {
  type BatchResult,
  type ProduceAck,
  batchResult,
  encodedFrameSize,
  requireHeaderSupport,
} from './produce-ops.js';
import type { Session } from './session.js';

/** Batches per topic in flight with the window: the broker's window size (WINDOW_BATCHES). */
export const WINDOW_IN_FLIGHT = 5;

export interface BatchReply {
  acks: ProduceAck[];
  errorCode: number;
  errorMessage: string;
}

/** What the window needs from its sink. */
export interface WindowHost {
  /** The current session and identity (INIT_PRODUCER_ID when needed). */
  ready(): Promise<Current>;
  /** A session bound to the same (pid, epoch) after `from` was lost, shared by every request that lost it. */
  resume(from: Session, cause: CraterError): Promise<Current>;
  /** Counts up whenever a producer session ends or a new one (INIT_PRODUCER_ID) starts. */
  generation(): number;
  /** Ends the session: the next request starts a new one. */
  endSession(): void;
  /** Takes `count` sequences of `topic` in the current session and returns the first. */
  assign(topic: string, count: number): number;
  maxRetries(): number;
}

interface InFlight {
  generation: number;
  baseSeq: number;
  /** Resolves when this batch's request settled; true when it was acked whole. */
  settled: Promise<boolean>;
}

const RETRY_PAUSE_MS = 50;
const MAX_RETRY_PAUSE_MS = 1_000;

export class IdempotentWindow {
  /** Per topic, the batches whose request has not settled, in sequence order. */
  private readonly lanes = new Map<string, InFlight[]>();
  /** Writes requests in call order: each waits for the one before it to be written, not answered. */
  private written: Promise<unknown> = Promise.resolve();
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly host: WindowHost) {}

  /** Resolves when no windowed request is outstanding (before a request that must go alone). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  send(
    topic: string,
    count: number,
    request: (current: Current, baseSeq: number) => Promise<BatchReply>,
    before?: () => Promise<unknown>,
  ): Promise<BatchReply> {
    const start = this.written.then(async () => {
      await before?.();
      const current = await this.host.ready();
      const generation = this.host.generation();
      const baseSeq = this.host.assign(topic, count);
      return { current, generation, baseSeq, pending: request(current, baseSeq) };
    });
    this.written = start.catch(() => undefined);
    // Counted from when it is written: a request that must go alone waits for these, and these for it.
    return start.then((s) => {
      const run = this.follow(topic, count, s, request);
      this.inFlight.add(run);
      const forget = (): void => void this.inFlight.delete(run);
      run.then(forget, forget);
      return run;
    });
  }

  private async follow(
    topic: string,
    count: number,
    sent: { current: Current; generation: number; baseSeq: number; pending: Promise<BatchReply> },
    request: (current: Current, baseSeq: number) => Promise<BatchReply>,
  ): Promise<BatchReply> {
    let settle!: (ok: boolean) => void;
    const entry: InFlight = {
      generation: sent.generation,
      baseSeq: sent.baseSeq,
      settled: new Promise<boolean>((resolve) => (settle = resolve)),
    };
    const lane = this.laneOf(topic);
    lane.push(entry);
    let ok = false;
    try {
      const reply = await this.attempts(topic, entry, sent, request);
      ok = reply.errorCode === ErrorCode.NONE && reply.acks.length === count;
      if (!ok && this.host.generation() === entry.generation) this.host.endSession();
      return reply;
    } catch (error) {
      if (this.host.generation() === entry.generation) this.host.endSession();
      throw error;
    } finally {
      lane.splice(lane.indexOf(entry), 1);
      if (lane.length === 0) this.lanes.delete(topic);
      settle(ok);
    }
  }

  /** Resends one batch, always with its sequence, until it is answered or cannot be resent safely. */
  private async attempts(
    topic: string,
    entry: InFlight,
    sent: { current: Current; pending: Promise<BatchReply> },
    request: (current: Current, baseSeq: number) => Promise<BatchReply>,
  ): Promise<BatchReply> {
    let { current, pending } = sent;
    let pause = RETRY_PAUSE_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        return await pending;
      } catch (error) {
        const stale = (): boolean => this.host.generation() !== entry.generation;
        if (error instanceof BrokerError) {
          const rule = errorRule(error.errorCode);
          if (attempt >= this.host.maxRetries() || !(rule.resendAfterEarlier || rule.retriable)) throw error;
          if (rule.resendAfterEarlier) {
            await this.before(topic, entry);
          } else {
            await new Promise((resolve) => setTimeout(resolve, pause));
            pause = Math.min(pause * 2, MAX_RETRY_PAUSE_MS);
          }
          if (stale()) return notAppended(error);
        } else {
          if (!isLostReply(error) || attempt >= this.host.maxRetries()) throw error;
          if (stale()) throw unknownAfterNewSession(error as CraterError);
          if (current.session.conn.closed) current = await this.host.resume(current.session, error as CraterError);
        }
        pending = request(current, entry.baseSeq);
      }
    }
  }

  /** Waits until every batch of `topic` before `entry` in its session has settled. */
  private async before(topic: string, entry: InFlight): Promise<void> {
    const earlier = (this.lanes.get(topic) ?? []).filter(
      (e) => e.generation === entry.generation && e.baseSeq !== entry.baseSeq && e !== entry && precedes(e, entry),
    );
    await Promise.all(earlier.map((e) => e.settled));
  }

  private laneOf(topic: string): InFlight[] {
    let lane = this.lanes.get(topic);
    if (!lane) this.lanes.set(topic, (lane = []));
    return lane;
  }
}

/** Lane order is sequence order (wrapping at 2^32 is far beyond five batches of 1,024). */
function precedes(a: InFlight, b: InFlight): boolean {
  const d = (b.baseSeq - a.baseSeq + 0x1_0000_0000) % 0x1_0000_0000;
  return d > 0 && d < 0x8000_0000;
}

/** A batch refused because one before it did not land: nothing of it was written; the caller resends it. */
function notAppended(cause: BrokerError): BatchReply {
  return {
    acks: [],
    errorCode: ErrorCode.INTERNAL,
    errorMessage: `not appended (${cause.message}): a batch before it in the producer session did not land, so the session ended; resend it on the next`,
  };
}

function unknownAfterNewSession(cause: CraterError): ConnectionError {
  return new ConnectionError(
    'connection lost with a request in flight whose outcome is unknown: its producer session ended meanwhile',
    { cause },
  );
}

/** One batch of encoded entries, several in flight, with BATCH_FLAG_WINDOW; `before` settles when it may go. */
export async function sendWindowed(
  window: IdempotentWindow,
  topic: string,
  entries: EncodedEntries,
  codec: number,
  options: SendOptions,
  before: () => Promise<unknown>,
): Promise<BatchResult> {
  const flags = BatchFlag.IDEMPOTENT | BatchFlag.WINDOW | (entries.withHeaders ? BatchFlag.HEADERS : 0);
  const reply = await window.send(
    topic,
    entries.count,
    ({ session, id }, baseSeq) => {
      if (entries.withHeaders) requireHeaderSupport(session);
      const message = { flags, codec, topic, ...id, baseSeq, entries };
      return session.conn.request(EncodedProduceBatchRequest, message, ProduceBatchAckReply, {
        timeoutMs: options.timeoutMs,
        sizeHint: encodedFrameSize(message),
      });
    },
    before,
  );
  return batchResult(reply);
}
