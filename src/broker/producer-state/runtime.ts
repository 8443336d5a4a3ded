/**
 * The broker's producer state: the pid allocator, durable (named) producers with their epochs and per-topic
 * sequence state, the `__producer_state` memo store, replay at start and the idle-expiry sweep
 * (semantics.md §5, §6). Ephemeral producers never reach the store: their state lives on the connection binding.
 *
 * A connection is bound to at most one producer (`ProducerBinding`, kept in `conn.session`); INIT_PRODUCER_ID
 * replaces the binding. Durable producers are shared by every connection bound to them, which is what lets a
 * resumed session (see `initProducer`) replay the acks its previous connection memoized.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { NO_ACK_PARTITION, PRODUCER_STATE_TOPIC, isNoAckMemo } from '../../storage/producer-state-codec.js';
import type { BrokerCore, Logger, ProducerStates } from '../core.js';
import type { CrashPoint } from '../fault-hooks.js';
import { type ConnectionHandle, HandlerError } from '../handler.js';
import { MemoStore, type StateWrite, stateWrites } from './memo-store.js';
import { PidAllocator } from './pid-allocator.js';
import { type ProducerStateSnapshot, replayProducerState } from './replay.js';
import type { SequenceState } from './sequence-table.js';
import { verifyLastMemos } from './verify-memos.js';
import { SESSION_PRODUCER, type DurableProducer, type ProducerBinding, bindingOf } from './binding.js';

export const DEFAULT_PRODUCER_EXPIRY_MS = 24 * 3_600_000;
export const DEFAULT_EXPIRY_SWEEP_MS = 300_000;
const MAX_EPOCH = 0xffff;

export interface ProducerStateOptions {
  /** Idle time after which a durable producer with no live connection expires (default 24 h; 0 disables). */
  expiryMs?: number;
  /** How often the expiry sweep runs (default 300 s). */
  sweepIntervalMs?: number;
}

const U32_MINUS_ONE = 0xffff_ffff;

export class ProducerStateRuntime implements ProducerStates {
  private readonly byName = new Map<string, DurableProducer>();
  private readonly byPid = new Map<bigint, DurableProducer>();
  private store: MemoStore | undefined;
  private opening: Promise<MemoStore> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<string[]> | undefined;
  readonly expiryMs: number;
  private readonly sweepIntervalMs: number;

  private constructor(
    private readonly broker: BrokerCore,
    private readonly allocator: PidAllocator,
    options: ProducerStateOptions,
  ) {
    this.expiryMs = options.expiryMs ?? DEFAULT_PRODUCER_EXPIRY_MS;
    this.sweepIntervalMs = options.sweepIntervalMs ?? DEFAULT_EXPIRY_SWEEP_MS;
  }

  /**
   * Replays `__producer_state` when it exists, checks the last memo of each (pid, topic) against the topics' data
   * (verify-memos.ts: takes back what a request interrupted by a crash left, and persists a "no ack" memo for it),
   * then starts the sweep. Throws when the state cannot be trusted. The topics must be loaded first.
   */
  static async open(broker: BrokerCore, options: ProducerStateOptions = {}): Promise<ProducerStateRuntime> {
    const topic = broker.topics.getTopic(PRODUCER_STATE_TOPIC);
    const snapshot = topic ? replayProducerState(topic.partitions, broker.logger) : undefined;
    const runtime = new ProducerStateRuntime(
      broker,
      PidAllocator.resume(snapshot?.highestPid, snapshot?.watermark),
      options,
    );
    if (topic) runtime.store = new MemoStore(topic.partitions, () => broker.now());
    if (snapshot) {
      const repairs = await verifyLastMemos(
        snapshot,
        (name) => broker.topics.getTopic(name)?.partitions,
        broker.logger,
      );
      if (repairs.length > 0) {
        await runtime.store!.write(
          repairs.map((r) =>
            stateWrites.memo(r.producerId, r.topic, { ...r.replacement, epoch: r.replacement.epoch! }),
          ),
        );
        for (const r of repairs) snapshot.memos.get(r.producerId)!.get(r.topic)!.memo = r.replacement;
      }
      runtime.load(snapshot, broker.logger);
    }
    if (runtime.expiryMs > 0 && runtime.sweepIntervalMs > 0) {
      runtime.timer = setInterval(() => {
        runtime
          .sweep()
          .catch((err: unknown) => broker.logger.warn('producer expiry sweep failed', { error: String(err) }));
      }, runtime.sweepIntervalMs);
      runtime.timer.unref();
    }
    return runtime;
  }

  get nextPid(): bigint {
    return this.allocator.nextPid;
  }

  /** Durable producers by name (for tests and tooling). */
  producer(name: string): DurableProducer | undefined {
    return this.byName.get(name);
  }

  /** Passes a crash point of the idempotent produce to the test-only fault hook, when one was given. */
  crashPoint(point: Exclude<CrashPoint, 'after-prepare-commit'>): void {
    this.broker.config.faults?.crashPoint?.(point);
  }

  get memoWrites(): number {
    return this.store?.writeCount ?? 0;
  }

  /**
   * INIT_PRODUCER_ID. An empty name issues an ephemeral pid (epoch 0). A name gets its stable pid and the next
   * epoch, persisted before the reply. `resume` (a crater extension) re-binds a new connection to the producer's
   * current session without bumping the epoch, so the previous connection's memos still apply; it is refused with
   * ERR 50 when that session is no longer current.
   */
  async initProducer(
    conn: ConnectionHandle,
    producerName: string,
    resume?: { producerId: bigint; epoch: number },
  ): Promise<{ producerId: bigint; epoch: number }> {
    if (producerName === '') {
      const producerId = this.allocator.allocate();
      this.bind(conn, { producerId, epoch: 0, durable: undefined, topics: new Map() });
      return { producerId, epoch: 0 };
    }
    const store = this.store ?? (await this.openStore());
    let producer = this.byName.get(producerName);
    if (resume) {
      if (!producer || producer.producerId !== resume.producerId || producer.epoch !== resume.epoch) {
        const current = producer ? `pid ${producer.producerId} epoch ${producer.epoch}` : 'no session';
        throw new HandlerError(
          ErrorCode.PRODUCER_FENCED,
          `producer '${producerName}' cannot resume pid ${resume.producerId} epoch ${resume.epoch}: current is ${current}`,
        );
      }
      this.bind(conn, {
        producerId: producer.producerId,
        epoch: producer.epoch,
        durable: producer,
        topics: producer.topics,
      });
      return { producerId: producer.producerId, epoch: producer.epoch };
    }
    if (producer && producer.epoch >= MAX_EPOCH) {
      throw new HandlerError(ErrorCode.INTERNAL, `producer '${producerName}' has used every epoch (0..${MAX_EPOCH})`);
    }
    if (producer) {
      producer.epoch++;
    } else {
      producer = {
        name: producerName,
        producerId: this.allocator.allocate(),
        epoch: 0,
        lastWriteAt: 0n,
        liveConnections: 0,
        topics: new Map(),
      };
      this.byName.set(producerName, producer);
      this.byPid.set(producer.producerId, producer);
    }
    producer.lastWriteAt = this.broker.now();
    const { producerId, epoch } = producer;
    this.bind(conn, { producerId, epoch, durable: producer, topics: producer.topics });
    await store.write([stateWrites.identity(producerName, producerId, epoch)]);
    return { producerId, epoch };
  }

  /**
   * Persists a durable binding's new state for `topic` (v2, or v3 when it holds a batch; a state without an ack as a
   * "no ack" v2 memo) and returns when it is durable; undefined for an ephemeral binding. Throws when the append
   * fails.
   */
  persist(binding: ProducerBinding, topic: string, state: SequenceState): Promise<void> | undefined {
    const producer = binding.durable;
    if (!producer) return undefined;
    if (!this.store) throw new Error('__producer_state is not open');
    producer.lastWriteAt = this.broker.now();
    const ack = state.lastAck ?? { partition: NO_ACK_PARTITION, offset: 0n };
    return this.store.write([
      stateWrites.memo(binding.producerId, topic, {
        lastSeq: state.lastSeq >>> 0,
        lastOffset: ack.offset,
        lastPartition: ack.partition,
        epoch: binding.epoch,
        batch: state.lastAck ? state.batch : undefined,
        window: state.window,
      }),
    ]);
  }

  /**
   * Expires durable producers idle for expiryMs with no live connection: the allocator watermark first, then the
   * identity tombstone, then a tombstone per memo key (semantics.md §6). Returns the expired names.
   */
  sweep(): Promise<string[]> {
    this.sweeping ??= this.expire().finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  /** Stops the sweep and waits for every memo write already started. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.sweeping?.catch(() => undefined);
    await this.store?.flush();
  }

  private async expire(): Promise<string[]> {
    if (this.expiryMs <= 0 || !this.store) return [];
    const now = this.broker.now();
    const idle = [...this.byName.values()].filter(
      (p) => p.liveConnections === 0 && now - p.lastWriteAt >= BigInt(this.expiryMs),
    );
    if (idle.length === 0) return [];
    const writes: StateWrite[] = [stateWrites.allocator(this.allocator.nextPid)];
    for (const p of idle) {
      this.byName.delete(p.name);
      this.byPid.delete(p.producerId);
      writes.push(stateWrites.identityTombstone(p.name));
      for (const topic of p.topics.keys()) writes.push(stateWrites.memoTombstone(p.producerId, topic));
    }
    await this.store.write(writes);
    this.broker.logger.info('expired idle producers', { producers: idle.map((p) => p.name) });
    return idle.map((p) => p.name);
  }

  private bind(conn: ConnectionHandle, binding: ProducerBinding): void {
    const previous = bindingOf(conn);
    if (previous?.durable) previous.durable.liveConnections--;
    else if (!previous) conn.onClose(() => this.release(conn));
    if (binding.durable) binding.durable.liveConnections++;
    conn.session.set(SESSION_PRODUCER, binding);
  }

  private release(conn: ConnectionHandle): void {
    const binding = bindingOf(conn);
    if (binding?.durable) binding.durable.liveConnections--;
    conn.session.delete(SESSION_PRODUCER);
  }

  private openStore(): Promise<MemoStore> {
    // internalLog creates the topic (commitlog, compact, 8 MiB, 16 partitions, sidecar) on first use.
    this.opening ??= this.broker.internalLog(PRODUCER_STATE_TOPIC, 1).then(() => {
      const topic = this.broker.topics.getTopic(PRODUCER_STATE_TOPIC)!;
      this.store ??= new MemoStore(topic.partitions, () => this.broker.now());
      return this.store;
    });
    return this.opening;
  }

  private load(snapshot: ProducerStateSnapshot, logger: Logger): void {
    for (const [name, identity] of snapshot.identities) {
      const producer: DurableProducer = {
        name,
        producerId: identity.producerId,
        epoch: identity.epoch,
        lastWriteAt: identity.writtenAt,
        liveConnections: 0,
        topics: new Map(),
      };
      this.byName.set(name, producer);
      this.byPid.set(identity.producerId, producer);
    }
    for (const [pid, topics] of snapshot.memos) {
      const producer = this.byPid.get(pid);
      if (!producer) continue;
      for (const [topic, { memo, writtenAt }] of topics) {
        const noAck = isNoAckMemo(memo);
        producer.topics.set(topic, {
          // A "no ack" memo's 0xFFFFFFFF is the sequence before 0: nothing has landed yet.
          lastSeq: noAck && memo.lastSeq === U32_MINUS_ONE ? -1 : memo.lastSeq,
          epoch: memo.epoch,
          lastAck: noAck ? undefined : { partition: memo.lastPartition, offset: memo.lastOffset },
          batch: memo.batch,
          window: memo.window,
        });
        if (writtenAt > producer.lastWriteAt) producer.lastWriteAt = writtenAt;
      }
    }
    logger.info('replayed __producer_state', {
      records: snapshot.records,
      producers: this.byName.size,
      nextPid: this.allocator.nextPid.toString(),
    });
  }
}
