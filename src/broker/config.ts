/**
 * Broker options (what `Broker.start` accepts) and the resolved configuration with wire.md's defaults filled in.
 * Timers are overridable so tests can exercise watchdogs in milliseconds instead of seconds.
 */
import { DEFAULT_MAX_FRAME_SIZE, Limits } from '../protocol/limits.js';
import type { FaultHooks } from './fault-hooks.js';
import type { Logger } from './logger.js';
import type { ConsumerRuntimeOptions, TransactionOptions } from './subsystem-options.js';

export type AcksMode = 'none' | 'leader';

export interface AuthOptions {
  username: string;
  /** `pbkdf2-sha256$<iter>$<salt_hex>$<hash_hex>` (see `hashPassword`). */
  passwordHash: string;
}

export interface InitialTopic {
  name: string;
  partitions: number;
}

export interface BrokerOptions {
  dataDir: string;
  host?: string;
  port?: number;
  acks?: AcksMode;
  /** Absent: open mode (AUTH still required, any credentials accepted). */
  auth?: AuthOptions | undefined;
  maxFrameSize?: number;
  /** Segment size for new user topics on the segmented backend. */
  segmentBytes?: number;
  /** Retention for new user topics, in milliseconds. */
  retentionMs?: number;
  /** Created at start when missing. */
  topics?: readonly InitialTopic[];
  handshakeTimeoutMs?: number;
  preAuthReadTimeoutMs?: number;
  idleReadTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /** Failed AUTH attempts per IP before a lockout, and how long it lasts. */
  authMaxFailures?: number;
  authLockoutMs?: number;
  maxPendingSendBytes?: number;
  /** Reply bytes queued in memory across all connections; past it the connection holding the most is closed. */
  maxPendingSendBytesTotal?: number;
  /** semantics.md §12: open connections allowed in total (960) and from one IP address (32); more get ERR 6. */
  maxConnections?: number;
  maxConnectionsPerIp?: number;
  /** wire.md §1 send deadline: a connection whose unsent bytes have not drained for this long is closed. */
  sendTimeoutMs?: number;
  /** How often the retention cleaner checks its schedule (storage.md §8.1: 5 s). */
  cleanerTickMs?: number;
  /** Cleaner interval for topics whose topic.config sets no `cleaner_interval` (default 1 h). */
  cleanerIntervalMs?: number;
  logger?: Logger;
  /** Replaces the wall clock (milliseconds), for tests. */
  clock?: () => bigint;
  /** Consumer-side timers and limits (group session, reaper, push interval, max deliveries, …). */
  consumer?: ConsumerRuntimeOptions;
  /** Transaction timeout (transactions/coordinator.ts). */
  transactions?: TransactionOptions | undefined;
  /** Test-only fault injection (fault-hooks.ts); never set in real use. */
  faults?: FaultHooks | undefined;
}

export interface BrokerConfig {
  readonly dataDir: string;
  readonly host: string;
  readonly port: number;
  readonly acks: AcksMode;
  readonly auth: AuthOptions | undefined;
  readonly maxFrameSize: number;
  readonly segmentBytes: number | undefined;
  readonly retentionMs: number | undefined;
  readonly topics: readonly InitialTopic[];
  readonly handshakeTimeoutMs: number;
  readonly preAuthReadTimeoutMs: number;
  readonly idleReadTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  readonly authMaxFailures: number;
  readonly authLockoutMs: number;
  readonly maxPendingSendBytes: number;
  readonly maxPendingSendBytesTotal: number;
  readonly maxConnections: number;
  readonly maxConnectionsPerIp: number;
  readonly sendTimeoutMs: number;
  readonly cleanerTickMs: number;
  readonly cleanerIntervalMs: number | undefined;
  readonly consumer: ConsumerRuntimeOptions | undefined;
  readonly transactions: TransactionOptions | undefined;
  readonly faults: FaultHooks | undefined;
}

export const BrokerDefaults = {
  host: '127.0.0.1',
  port: 0,
  acks: 'leader',
  maxFrameSize: DEFAULT_MAX_FRAME_SIZE,
  handshakeTimeoutMs: 5_000,
  preAuthReadTimeoutMs: 5_000,
  idleReadTimeoutMs: 60_000,
  heartbeatIntervalMs: 30_000,
  authMaxFailures: 5,
  authLockoutMs: 60_000,
  maxPendingSendBytes: Limits.pendingSendBytes,
  maxPendingSendBytesTotal: 128 * 1_048_576,
  maxConnections: 960,
  maxConnectionsPerIp: 32,
  sendTimeoutMs: 30_000,
  cleanerTickMs: 5_000,
} as const;

function positive(name: string, v: number | undefined, fallback: number): number {
  const value = v ?? fallback;
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number, got ${v}`);
  return value;
}

function count(name: string, v: number | undefined, fallback: number): number {
  const value = v ?? fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer, got ${v}`);
  return value;
}

/** Checked at run time: a JavaScript caller or a settings file can pass any value, whatever the type says. */
function acksMode(value: unknown): AcksMode {
  if (value === 'none' || value === 'leader') return value;
  throw new RangeError(`acks must be none or leader, got ${String(value)}`);
}

export function resolveConfig(options: BrokerOptions): BrokerConfig {
  const port = options.port ?? BrokerDefaults.port;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new RangeError(`port must be 0..65535, got ${port}`);
  return {
    dataDir: options.dataDir,
    host: options.host ?? BrokerDefaults.host,
    port,
    acks: acksMode(options.acks ?? BrokerDefaults.acks),
    auth: options.auth,
    maxFrameSize: positive('maxFrameSize', options.maxFrameSize, BrokerDefaults.maxFrameSize),
    segmentBytes: options.segmentBytes === undefined ? undefined : positive('segmentBytes', options.segmentBytes, 0),
    retentionMs: options.retentionMs === undefined ? undefined : positive('retentionMs', options.retentionMs, 0),
    topics: options.topics ?? [],
    handshakeTimeoutMs: positive('handshakeTimeoutMs', options.handshakeTimeoutMs, BrokerDefaults.handshakeTimeoutMs),
    preAuthReadTimeoutMs: positive(
      'preAuthReadTimeoutMs',
      options.preAuthReadTimeoutMs,
      BrokerDefaults.preAuthReadTimeoutMs,
    ),
    idleReadTimeoutMs: positive('idleReadTimeoutMs', options.idleReadTimeoutMs, BrokerDefaults.idleReadTimeoutMs),
    heartbeatIntervalMs: positive(
      'heartbeatIntervalMs',
      options.heartbeatIntervalMs,
      BrokerDefaults.heartbeatIntervalMs,
    ),
    authMaxFailures: positive('authMaxFailures', options.authMaxFailures, BrokerDefaults.authMaxFailures),
    authLockoutMs: positive('authLockoutMs', options.authLockoutMs, BrokerDefaults.authLockoutMs),
    maxPendingSendBytes: positive(
      'maxPendingSendBytes',
      options.maxPendingSendBytes,
      BrokerDefaults.maxPendingSendBytes,
    ),
    maxPendingSendBytesTotal: positive(
      'maxPendingSendBytesTotal',
      options.maxPendingSendBytesTotal,
      BrokerDefaults.maxPendingSendBytesTotal,
    ),
    maxConnections: count('maxConnections', options.maxConnections, BrokerDefaults.maxConnections),
    maxConnectionsPerIp: count('maxConnectionsPerIp', options.maxConnectionsPerIp, BrokerDefaults.maxConnectionsPerIp),
    sendTimeoutMs: positive('sendTimeoutMs', options.sendTimeoutMs, BrokerDefaults.sendTimeoutMs),
    cleanerTickMs: positive('cleanerTickMs', options.cleanerTickMs, BrokerDefaults.cleanerTickMs),
    cleanerIntervalMs:
      options.cleanerIntervalMs === undefined ? undefined : positive('cleanerIntervalMs', options.cleanerIntervalMs, 0),
    consumer: options.consumer,
    transactions: options.transactions,
    faults: options.faults,
  };
}
