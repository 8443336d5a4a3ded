/**
 * A share-group consumer (crater extension; KIP-932's model): records of the group's topics are handed out under
 * acquisition locks, so the members of one group see disjoint records, and each record is acknowledged on its own.
 *
 * `ackMode: 'implicit'` (default) accepts every record of a poll that was not acknowledged otherwise when the next
 * poll is sent (the acks ride on that SHARE_FETCH) or on commit()/close(). `'explicit'` requires every record of a
 * poll to be acknowledged before the next poll (UsageError otherwise). The consumer owns its connection: it joins
 * on create, heartbeats at the interval the broker gives, and leaves on close (its held records become Available).
 */
import { UsageError } from '../../errors.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import type { ShareAckResult, SharePartitionAcks } from '../../protocol/messages/share-acks.js';
import { ShareAckType } from '../../protocol/opcodes.js';
import { brokerError } from './connection.js';
import { isOneOf } from '../validate.js';
import type { Session } from './session.js';
import {
  joinShareGroup,
  leaveShareGroup,
  shareAck,
  shareFetch,
  shareHeartbeat,
  type ShareMember,
} from './share-ops.js';
import { ShareAckQueue, type ShareAckName, type ShareConsumerRecord, ackTypeOf } from '../consumer/share-ack-queue.js';

export type { ShareConsumerRecord, ShareAckName };

export interface ShareConsumerOptions {
  group: string;
  topics: readonly string[];
  ackMode?: 'implicit' | 'explicit';
  /** Records per poll (500). */
  maxRecords?: number;
  /** How long a poll waits on the broker when nothing is available (500 ms; at most 30,000). */
  maxWaitMs?: number;
  /** Called with every ack result that carries an error (a lock that expired before its ack, …). */
  onAckError?: (result: ShareAckResult) => void;
}

export interface AcknowledgeOptions {
  /** RELEASE only: keep the record unavailable this long. */
  delayMs?: number;
  /** REJECT only: the last error, kept in the dead-letter copy. */
  reason?: string;
}

export class ShareConsumer implements AsyncIterable<ShareConsumerRecord>, AsyncDisposable {
  private readonly queue = new ShareAckQueue();
  private readonly heartbeat: NodeJS.Timeout;
  private closing: Promise<void> | undefined;
  private polling = false;

  private constructor(
    private readonly session: Session,
    private readonly options: ShareConsumerOptions,
    private readonly member: ShareMember,
    private readonly onClosed: (c: ShareConsumer) => void,
  ) {
    this.heartbeat = setInterval(
      () => {
        shareHeartbeat(session, options.group, member.memberId).catch(() => undefined);
      },
      Math.max(100, member.heartbeatIntervalMs),
    );
  }

  /** Joins the group on `session` (which the consumer then owns and closes). */
  static async create(
    session: Session,
    options: ShareConsumerOptions,
    onClosed: (c: ShareConsumer) => void = () => {},
  ): Promise<ShareConsumer> {
    if (options.ackMode !== undefined && !isOneOf(options.ackMode, ['implicit', 'explicit'] as const)) {
      session.conn.destroy();
      throw new UsageError(`ackMode must be implicit or explicit, got '${String(options.ackMode)}'`);
    }
    try {
      const member = await joinShareGroup(session, options.group, options.topics);
      return new ShareConsumer(session, options, member, onClosed);
    } catch (err) {
      await session.conn.close().catch(() => undefined);
      throw err;
    }
  }

  get memberId(): string {
    return this.member.memberId;
  }

  get group(): string {
    return this.options.group;
  }

  /** The group's lock duration when this member joined (what the renewal helper paces itself by). */
  get recordLockDurationMs(): number {
    return this.member.recordLockDurationMs;
  }

  private get explicit(): boolean {
    return this.options.ackMode === 'explicit';
  }

  /** Marks a record ACCEPT, RELEASE (optionally delayed) or REJECT; sent with the next poll or commit(). */
  acknowledge(record: ShareConsumerRecord, type: ShareAckName = 'accept', options: AcknowledgeOptions = {}): void {
    if (!isOneOf(type, ['accept', 'release', 'reject'] as const))
      throw new UsageError(`ack type must be accept, release or reject, got '${String(type)}'`);
    const ackType = ackTypeOf[type];
    const delayMs = options.delayMs ?? 0;
    if (!Number.isInteger(delayMs) || delayMs < 0 || delayMs > 0xffffffff)
      throw new UsageError(`delayMs must be a non-negative integer, got ${delayMs}`);
    if (!this.queue.decide(record, ackType, delayMs, options.reason ?? '')) {
      throw new UsageError(
        `record ${record.topic}/${record.partition}@${record.offset} is not held undecided by this consumer`,
      );
    }
  }

  /** The next records (possibly none after maxWaitMs); sends the acks owed so far with the request. */
  async poll(): Promise<ShareConsumerRecord[]> {
    this.assertOpen();
    if (this.polling) throw new UsageError('a poll is already in flight on this share consumer');
    if (this.explicit && this.queue.undecided() > 0) {
      throw new UsageError(
        `explicit ack mode: acknowledge the ${this.queue.undecided()} record(s) of the last poll before polling again`,
      );
    }
    if (!this.explicit) this.queue.decideRest(ShareAckType.ACCEPT);
    this.polling = true;
    try {
      const maxWaitMs = this.options.maxWaitMs ?? 500;
      const reply = await shareFetch(
        this.session,
        {
          group: this.options.group,
          memberId: this.member.memberId,
          maxRecords: this.options.maxRecords ?? 500,
          maxWaitMs,
          acks: this.queue.drain(),
        },
        maxWaitMs + 30_000,
      );
      this.report(reply.results);
      this.queue.delivered(reply.records);
      return reply.records;
    } finally {
      this.polling = false;
    }
  }

  /** Sends every decided ack now (implicit mode: accepts the undecided too); resolves once the broker made them durable. */
  async commit(): Promise<ShareAckResult[]> {
    this.assertOpen();
    return this.flushAcks();
  }

  /** Extends this member's lock on `record` by the group's lock duration. */
  async renew(record: ShareConsumerRecord): Promise<void> {
    this.assertOpen();
    const acks: SharePartitionAcks[] = [
      {
        topic: record.topic,
        partition: record.partition,
        ranges: [
          {
            firstOffset: record.offset,
            lastOffset: record.offset,
            type: ShareAckType.RENEW,
            releaseDelayMs: 0,
            reason: '',
          },
        ],
      },
    ];
    const [result] = await shareAck(this.session, this.options.group, this.member.memberId, acks);
    if (result && result.errorCode !== ErrorCode.NONE) {
      throw brokerError(
        result.errorCode,
        `cannot renew the lock on ${record.topic}/${record.partition}@${record.offset}`,
      );
    }
  }

  /** Runs `work` while renewing the lock on `record` every half lock duration; stops renewing when it settles. */
  async withLockRenewal<T>(record: ShareConsumerRecord, work: () => Promise<T>): Promise<T> {
    let failure: Error | undefined;
    const timer = setInterval(
      () => {
        this.renew(record).catch((err: unknown) => (failure ??= err instanceof Error ? err : new Error(String(err))));
      },
      Math.max(50, Math.floor(this.member.recordLockDurationMs / 2)),
    );
    try {
      const result = await work();
      if (failure !== undefined) throw failure;
      return result;
    } finally {
      clearInterval(timer);
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ShareConsumerRecord> {
    while (!this.closing && !this.session.conn.closed) {
      const records = await this.poll();
      let given = 0;
      try {
        for (const r of records) {
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- `closing` is changed during the await above; TypeScript keeps the narrowing across it (TypeScript#9998)
          if (this.closing) return;
          given++;
          yield r;
        }
      } finally {
        // Leaving the loop early: records never handed out go back to the group instead of being accepted.
        for (const r of records.slice(given)) this.queue.decide(r, ShareAckType.RELEASE, 0, '');
      }
    }
  }

  /** Implicit mode accepts what was delivered; then leaves the group (releasing anything held) and closes the connection. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private async shutdown(): Promise<void> {
    clearInterval(this.heartbeat);
    try {
      if (!this.session.conn.closed) {
        await this.flushAcks().catch(() => undefined);
        await leaveShareGroup(this.session, this.options.group, this.member.memberId).catch(() => undefined);
      }
    } finally {
      await this.session.conn.close().catch(() => undefined);
      this.onClosed(this);
    }
  }

  private async flushAcks(): Promise<ShareAckResult[]> {
    if (!this.explicit) this.queue.decideRest(ShareAckType.ACCEPT);
    const acks = this.queue.drain();
    if (acks.length === 0) return [];
    const results = await shareAck(this.session, this.options.group, this.member.memberId, acks);
    this.report(results);
    return results;
  }

  private report(results: readonly ShareAckResult[]): void {
    for (const r of results) if (r.errorCode !== ErrorCode.NONE) this.options.onAckError?.(r);
  }

  private assertOpen(): void {
    if (this.closing || this.session.conn.closed)
      throw new UsageError(`the share consumer of group '${this.options.group}' is closed`);
  }
}
