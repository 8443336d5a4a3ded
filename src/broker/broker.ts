/**
 * The broker: a TCP server over a data directory. `Broker.start` takes the data-dir lock, loads every topic,
 * starts the consumer runtime and listens; `stop` drains connections (requests already received finish), stops the
 * consumer runtime and closes every partition log (fsync, checkpoint, clean-shutdown marker).
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import { ShutdownIncompleteError } from '../errors.js';
import type { PartitionLog } from '../storage/partition-log.js';
import { Admission } from './admission.js';
import { Authenticator } from './auth.js';
import { RetentionCleaner } from './cleaner.js';
import { type BrokerConfig, type BrokerOptions, resolveConfig } from './config.js';
import { createConsumerRuntime } from './consumer-handlers.js';
import { type BrokerCore, type ConsumerRuntime, type Logger, silentLogger } from './core.js';
import { DataDirLock } from './data-dir-lock.js';
import { type HandlerRegistry, createHandlerRegistry } from './handler-registry.js';
import { coreHandlers } from './handlers/index.js';
import type { LogFactory } from './log-factory.js';
import { type ProducerStateOptions, ProducerStateRuntime } from './producer-state/runtime.js';
import { SendBudget } from './send-budget.js';
import { type CloseReason, ServerConnection } from './server-connection.js';
import { storageLogFactory } from './storage-log-factory.js';
import { type ShareOptions, ShareRuntime } from './share/index.js';
import { type Topic, TopicRegistry } from './topics.js';
import { TransactionCoordinator } from './transactions/coordinator.js';

export type { BrokerCore, ConsumerRuntime, Logger } from './core.js';

export const INTERNAL_TOPIC_PARTITIONS = 16;
export const INTERNAL_TOPIC_CONFIG = {
  max_segment_size: '8388608',
  backend: 'commitlog',
  cleanup_policy: 'compact',
} as const;

export interface BrokerAddress {
  host: string;
  port: number;
}

export type BrokerEvent =
  | { type: 'listening'; address: BrokerAddress }
  | { type: 'connection-opened'; remoteAddress: string; connections: number }
  | { type: 'connection-closed'; remoteAddress: string; reason: CloseReason | undefined; connections: number }
  /** The retention cleaner checked its schedule (every cleanerTickMs): how many topics it cleaned, what it deleted. */
  | { type: 'retention-pass'; topics: number; deletedSegments: number; deletedBytes: number }
  | { type: 'stopping' }
  | { type: 'stopped' };

export interface BrokerStartOptions extends BrokerOptions {
  /** Replaces the storage backends (tests inject faults through it). */
  logFactory?: LogFactory;
  /** Idle expiry of durable producers (default 24 h, swept every 300 s). */
  producerState?: ProducerStateOptions;
  /** Share groups: group config defaults, member session and sweep timers (share/config.ts). */
  share?: ShareOptions;
}

export class Broker implements BrokerCore, AsyncDisposable {
  readonly config: BrokerConfig;
  readonly topics: TopicRegistry;
  readonly logger: Logger;
  readonly authenticator: Authenticator;
  identity = { name: 'crater', version: '0.0.0' };
  consumer: ConsumerRuntime | undefined;
  producerState!: ProducerStateRuntime;
  readonly transactions: TransactionCoordinator;
  share!: ShareRuntime;
  private readonly shareOptions: ShareOptions | undefined;
  private readonly producerStateOptions: ProducerStateOptions | undefined;
  private readonly clock: () => bigint;
  private readonly cleaner: RetentionCleaner;
  private readonly server: net.Server;
  private readonly connections = new Set<ServerConnection>();
  private readonly admission: Admission;
  private readonly sendBudget: SendBudget;
  private readonly listeners = new Set<(event: BrokerEvent) => void>();
  private readonly internalPending = new Map<string, Promise<Topic>>();
  private registry!: HandlerRegistry;
  private lock: DataDirLock | undefined;
  private stopping: Promise<void> | undefined;
  private boundAddress: BrokerAddress | undefined;

  private constructor(options: BrokerStartOptions) {
    this.config = resolveConfig(options);
    this.logger = options.logger ?? silentLogger;
    this.authenticator = new Authenticator(this.config.auth, this.config.authMaxFailures, this.config.authLockoutMs);
    this.clock = options.clock ?? (() => BigInt(Date.now()));
    this.producerStateOptions = options.producerState;
    this.shareOptions = options.share;
    this.topics = new TopicRegistry(this.config.dataDir, options.logFactory ?? storageLogFactory(this.config));
    this.cleaner = new RetentionCleaner(this.topics, {
      tickMs: this.config.cleanerTickMs,
      intervalMs: this.config.cleanerIntervalMs,
      retentionMs: this.config.retentionMs,
      now: () => Number(this.clock()),
      logger: this.logger,
      afterPass: () => this.transactions.pruneAbortIndex(),
      onPass: (pass) => this.emit({ type: 'retention-pass', ...pass }),
    });
    this.transactions = new TransactionCoordinator(this, this.config.transactions);
    this.admission = new Admission(this.config, this.logger);
    this.sendBudget = new SendBudget(this.config.maxPendingSendBytesTotal, this.logger);
    this.server = net.createServer((socket) => this.accept(socket));
  }

  static async start(options: BrokerStartOptions): Promise<Broker> {
    const broker = new Broker(options);
    await broker.open();
    return broker;
  }

  get dataDir(): string {
    return this.config.dataDir;
  }

  get address(): BrokerAddress {
    if (!this.boundAddress) throw new Error('broker is not listening');
    return this.boundAddress;
  }

  /** fsyncs issued by every open partition log, internal topics included. */
  get fsyncCount(): number {
    return this.topics.fsyncCount;
  }

  /** fsyncs issued by the partition logs of user topics only (group commits and other `__*` writes left out). */
  get userFsyncCount(): number {
    return this.topics.userFsyncCount;
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /** Reply bytes queued in memory across every connection, as last reported to the broker-wide send budget. */
  get pendingSendBytes(): number {
    return this.sendBudget.total;
  }

  now(): bigint {
    return this.clock();
  }

  on(listener: (event: BrokerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async internalLog(topicName: string, partition: number): Promise<PartitionLog> {
    const topic = this.topics.getTopic(topicName) ?? (await this.ensureInternalTopic(topicName));
    const log = topic.partitions[partition - 1];
    if (!log) throw new RangeError(`${topicName} has no partition ${partition}`);
    return log;
  }

  /** Creates an internal `__*` topic once, however many callers ask at the same time. */
  ensureInternalTopic(name: string, partitions: number = INTERNAL_TOPIC_PARTITIONS): Promise<Topic> {
    const existing = this.topics.getTopic(name);
    if (existing) return Promise.resolve(existing);
    let pending = this.internalPending.get(name);
    if (!pending) {
      pending = this.topics
        .createTopic(name, partitions, { internal: true, config: INTERNAL_TOPIC_CONFIG })
        .finally(() => this.internalPending.delete(name));
      this.internalPending.set(name, pending);
    }
    return pending;
  }

  /** Deletes a user topic and tells the consumer runtime. */
  async deleteTopic(name: string): Promise<void> {
    await this.topics.deleteTopic(name);
    await this.consumer?.onTopicDeleted(name);
  }

  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  private async open(): Promise<void> {
    await fs.mkdir(this.config.dataDir, { recursive: true });
    this.identity = await readIdentity();
    this.lock = await DataDirLock.acquire(this.config.dataDir);
    // What has opened so far, for the cleanup of a start that fails part-way (the fields are set only on success).
    let producerState: ProducerStateRuntime | undefined;
    let share: ShareRuntime | undefined;
    try {
      await this.topics.load();
      for (const t of this.config.topics) {
        if (!this.topics.getTopic(t.name)) await this.topics.createTopic(t.name, t.partitions);
      }
      this.registry = createHandlerRegistry(coreHandlers);
      this.producerState = producerState = await ProducerStateRuntime.open(this, this.producerStateOptions);
      this.consumer = createConsumerRuntime(this);
      await this.consumer?.start();
      // After the offset store: rolling a PREPARE_COMMIT forward applies its buffered offsets.
      await this.transactions.start();
      this.share = share = await ShareRuntime.open(this, this.shareOptions);
      this.cleaner.start();
      await new Promise<void>((resolve, reject) => {
        this.server.once('error', reject);
        this.server.listen(this.config.port, this.config.host, () => {
          this.server.off('error', reject);
          this.server.on('error', (err) => this.admission.acceptFailed(err));
          resolve();
        });
      });
    } catch (err) {
      await this.cleaner.stop();
      await share?.stop().catch(() => undefined);
      await this.transactions.stop().catch(() => undefined);
      await producerState?.stop().catch(() => undefined);
      await this.consumer?.stop().catch(() => undefined);
      await this.topics.closeAll().catch(() => undefined);
      await this.lock.release();
      throw err;
    }
    const addr = this.server.address() as net.AddressInfo;
    this.boundAddress = { host: addr.address, port: addr.port };
    this.logger.info('broker listening', { host: addr.address, port: addr.port, dataDir: this.config.dataDir });
    this.emit({ type: 'listening', address: this.boundAddress });
  }

  private accept(socket: net.Socket): void {
    if (this.stopping) {
      socket.destroy();
      return;
    }
    if (!this.admission.admit(socket)) return;
    const conn = new ServerConnection(socket, this, this.registry, this.sendBudget);
    this.connections.add(conn);
    this.emit({ type: 'connection-opened', remoteAddress: conn.remoteAddress, connections: this.connections.size });
    void conn.whenClosed.then(() => {
      this.admission.release(conn.remoteAddress);
      this.connections.delete(conn);
      this.emit({
        type: 'connection-closed',
        remoteAddress: conn.remoteAddress,
        reason: conn.closeReason,
        connections: this.connections.size,
      });
    });
  }

  /**
   * Every step runs even when an earlier one failed (a final fsync on a full disk must not leave logs open or the
   * lock held); the failures are reported together as one ShutdownIncompleteError once the broker is down.
   */
  private async shutdown(): Promise<void> {
    this.emit({ type: 'stopping' });
    this.share.quiesce();
    const cleanerStopped = this.cleaner.stop();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.admission.closeRefused();
    await Promise.all([...this.connections].map((c) => c.drainAndClose()));
    await closed;
    const failures: unknown[] = [];
    const step = async (work: () => Promise<void> | undefined): Promise<void> => {
      try {
        await work();
      } catch (err) {
        failures.push(err);
      }
    };
    await step(() => this.share.stop());
    await step(() => this.transactions.stop());
    await step(() => this.producerState.stop());
    await step(() => this.consumer?.stop());
    await step(() => cleanerStopped);
    await step(() => this.topics.closeAll());
    await step(() => this.lock?.release());
    const incomplete = failures.length > 0 ? new ShutdownIncompleteError(failures) : undefined;
    if (incomplete)
      this.logger.error('broker stopped, but its final sync failed', {
        error: incomplete.failures.map(errorText).join('; '),
      });
    else this.logger.info('broker stopped', { dataDir: this.config.dataDir });
    this.emit({ type: 'stopped' });
    if (incomplete) throw incomplete;
  }

  private emit(event: BrokerEvent): void {
    for (const l of this.listeners) l(event);
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** crater's name and version for IDENTIFY_ACK, from package.json (two levels up from src/broker and dist/broker). */
async function readIdentity(): Promise<{ name: string; version: string }> {
  const pkg = JSON.parse(await fs.readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
    name?: string;
    version?: string;
  };
  return { name: pkg.name ?? 'crater', version: pkg.version ?? '0.0.0' };
}
