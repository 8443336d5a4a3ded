/**
 * Share-group configuration (KIP-932's group configs and defaults) and the broker-wide share options. A group's
 * values are set with SHARE_ALTER, persisted in `__share_group_state` and apply to records acquired afterwards.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { HandlerError } from '../handler.js';

export interface ShareGroupConfig {
  /** How long an acquired record stays locked to its member (record.lock.duration.ms, 30 s). */
  recordLockDurationMs: number;
  /** Deliveries after which a released or expired record is Archived (delivery.count.limit, 5). */
  deliveryCountLimit: number;
  /** In-flight records per share-partition (partition.max.record.locks, 2,000). */
  partitionMaxRecordLocks: number;
  /** Where a share-partition without state starts (auto.offset.reset, latest). */
  autoOffsetReset: 'latest' | 'earliest';
  /** read_committed: the window stops at the LSO and aborted records are never acquired (isolation.level). */
  isolationLevel: 'read_uncommitted' | 'read_committed';
  /** Copy archived records (REJECT, delivery limit) to `<topic>.dlq` (dlq.enabled, false). */
  dlqEnabled: boolean;
}

export const ShareConfigDefaults: ShareGroupConfig = {
  recordLockDurationMs: 30_000,
  deliveryCountLimit: 5,
  partitionMaxRecordLocks: 2_000,
  autoOffsetReset: 'latest',
  isolationLevel: 'read_uncommitted',
  dlqEnabled: false,
};

export interface ShareOptions {
  /** Defaults for groups that set nothing (KIP-932's values otherwise). */
  defaults?: Partial<ShareGroupConfig>;
  /** A member silent for this long is removed and its records released (45 s). */
  sessionTimeoutMs?: number;
  /** What SHARE_MEMBER tells members to heartbeat at (5 s). */
  heartbeatIntervalMs?: number;
  /** How often lapsed members and expired locks are swept without any request arriving (1 s). */
  sweepIntervalMs?: number;
  /** How often a waiting SHARE_FETCH looks for records again (20 ms). */
  waitPollMs?: number;
}

export const ShareOptionDefaults = {
  sessionTimeoutMs: 45_000,
  heartbeatIntervalMs: 5_000,
  sweepIntervalMs: 1_000,
  waitPollMs: 20,
} as const;

type Field = keyof ShareGroupConfig;

const integer =
  (min: number, max: number) =>
  (v: string): number | undefined => {
    if (!/^\d+$/.test(v)) return undefined;
    const n = Number(v);
    return n >= min && n <= max ? n : undefined;
  };
const oneOf =
  <T extends string>(...values: T[]) =>
  (v: string): T | undefined =>
    (values as string[]).includes(v) ? (v as T) : undefined;

/** Config key → field, parser and the range named in the error. */
export const shareConfigKeys: Record<string, { field: Field; parse: (v: string) => unknown; accepts: string }> = {
  'record.lock.duration.ms': { field: 'recordLockDurationMs', parse: integer(1, 3_600_000), accepts: '1..3600000' },
  'delivery.count.limit': { field: 'deliveryCountLimit', parse: integer(1, 100), accepts: '1..100' },
  'partition.max.record.locks': { field: 'partitionMaxRecordLocks', parse: integer(1, 10_000), accepts: '1..10000' },
  'auto.offset.reset': { field: 'autoOffsetReset', parse: oneOf('latest', 'earliest'), accepts: 'latest|earliest' },
  'isolation.level': {
    field: 'isolationLevel',
    parse: oneOf('read_uncommitted', 'read_committed'),
    accepts: 'read_uncommitted|read_committed',
  },
  'dlq.enabled': {
    field: 'dlqEnabled',
    parse: (v) => (v === 'true' ? true : v === 'false' ? false : undefined),
    accepts: 'true|false',
  },
};

/** `base` with `entries` applied; throws ERR_INVALID_CONFIG (nothing applied) on an unknown key or a bad value. */
export function applyShareConfig(
  base: ShareGroupConfig,
  entries: ReadonlyArray<readonly [string, string]>,
): ShareGroupConfig {
  const next: Record<string, unknown> = { ...base };
  for (const [key, value] of entries) {
    const spec = shareConfigKeys[key];
    if (!spec) throw new HandlerError(ErrorCode.INVALID_CONFIG, `unknown share group config '${key}'`);
    const parsed = spec.parse(value);
    if (parsed === undefined)
      throw new HandlerError(ErrorCode.INVALID_CONFIG, `${key} must be ${spec.accepts}, got '${value}'`);
    next[spec.field] = parsed;
  }
  return next as unknown as ShareGroupConfig;
}

/** The config as key/value pairs, in table order. */
export function shareConfigEntries(config: ShareGroupConfig): Array<[string, string]> {
  return Object.entries(shareConfigKeys).map(([key, spec]) => [key, String(config[spec.field])]);
}
