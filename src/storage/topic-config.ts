/**
 * The topic sidecar `<dataDir>/<topic>/topic.config` (storage.md §8.3):
 *
 *   max_segment_size=8388608\n      numeric keys first, in this order, printed with C's "%.f"
 *   retention=604800\n              (seconds)
 *   cleaner_interval=3600\n         (seconds)
 *   max_log_bytes=0\n
 *   backend=commitlog\n             string keys after; backend only when it is not "segmented"
 *   cleanup_policy=compact\n
 *
 * Only options that differ from their default for the topic's backend are written, and when none do the file is
 * not written at all (a stale one is removed). Reading ignores blank lines, `#` comments, unknown keys and values
 * that do not parse, so those options keep their defaults. Writes go through a temp file and an atomic rename.
 */
import { storageFs as fs } from './file-io.js';
import path from 'node:path';
import { StorageError } from '../errors.js';
import { fsyncDirSync, writeFileAtomicSync } from './file-io.js';

export const TOPIC_CONFIG_FILE = 'topic.config';

export const DEFAULT_SEGMENTED_MAX_SEGMENT_SIZE = 1024 * 1024 * 1024;
export const DEFAULT_COMMITLOG_MAX_SEGMENT_SIZE = 64 * 1024 * 1024;
export const DEFAULT_INTERNAL_MAX_SEGMENT_SIZE = 8 * 1024 * 1024;
/** Time-index positions are u32, so a segmented segment may not exceed 4 GiB. */
export const MAX_SEGMENT_SIZE_LIMIT = 4 * 1024 * 1024 * 1024;
export const DEFAULT_RETENTION_SECONDS = 7 * 24 * 3600;
export const DEFAULT_CLEANER_INTERVAL_SECONDS = 3600;
export const DEFAULT_MAX_LOG_BYTES = 0;

export const TopicConfigDefaults = {
  maxSegmentSize: {
    segmented: DEFAULT_SEGMENTED_MAX_SEGMENT_SIZE,
    commitlog: DEFAULT_COMMITLOG_MAX_SEGMENT_SIZE,
    internal: DEFAULT_INTERNAL_MAX_SEGMENT_SIZE,
  },
  retentionSeconds: DEFAULT_RETENTION_SECONDS,
  cleanerIntervalSeconds: DEFAULT_CLEANER_INTERVAL_SECONDS,
  maxLogBytes: DEFAULT_MAX_LOG_BYTES,
  backend: 'segmented',
  cleanupPolicy: 'delete',
} as const;

export type LogBackend = 'segmented' | 'commitlog';
export type CleanupPolicy = 'delete' | 'compact';

/** A sidecar's options; an absent field means "the default". */
export interface TopicConfig {
  maxSegmentSize?: number;
  retentionSeconds?: number;
  cleanerIntervalSeconds?: number;
  maxLogBytes?: number;
  backend?: LogBackend;
  cleanupPolicy?: CleanupPolicy;
}

export type ResolvedTopicConfig = Required<TopicConfig>;

/** File key ↔ field, in the order the file lists them. */
const NUMERIC_KEYS = [
  ['max_segment_size', 'maxSegmentSize'],
  ['retention', 'retentionSeconds'],
  ['cleaner_interval', 'cleanerIntervalSeconds'],
  ['max_log_bytes', 'maxLogBytes'],
] as const;
const STRING_KEYS = [
  ['backend', 'backend', ['segmented', 'commitlog']],
  ['cleanup_policy', 'cleanupPolicy', ['delete', 'compact']],
] as const;

/** Every option filled in: the file's values over the defaults for its backend (`internal` for `__*` topics). */
export function resolveTopicConfig(config: TopicConfig, internal = false): ResolvedTopicConfig {
  const backend = config.backend ?? (internal ? 'commitlog' : 'segmented');
  return {
    maxSegmentSize: config.maxSegmentSize ?? defaultMaxSegmentSize(backend, internal),
    retentionSeconds: config.retentionSeconds ?? DEFAULT_RETENTION_SECONDS,
    cleanerIntervalSeconds: config.cleanerIntervalSeconds ?? DEFAULT_CLEANER_INTERVAL_SECONDS,
    maxLogBytes: config.maxLogBytes ?? DEFAULT_MAX_LOG_BYTES,
    backend,
    cleanupPolicy: config.cleanupPolicy ?? 'delete',
  };
}

export function defaultMaxSegmentSize(backend: LogBackend, internal = false): number {
  if (internal) return DEFAULT_INTERNAL_MAX_SEGMENT_SIZE;
  return backend === 'commitlog' ? DEFAULT_COMMITLOG_MAX_SEGMENT_SIZE : DEFAULT_SEGMENTED_MAX_SEGMENT_SIZE;
}

/** Parses sidecar text. Never throws: lines it does not understand are skipped. */
export function parseTopicConfig(text: string): TopicConfig {
  const config: TopicConfig = {};
  for (const [key, value] of Object.entries(parseTopicConfigEntries(text))) {
    const num = NUMERIC_KEYS.find(([k]) => k === key);
    if (num) {
      const n = Number(value);
      if (value !== '' && Number.isFinite(n) && n >= 0) config[num[1]] = n;
      continue;
    }
    const str = STRING_KEYS.find(([k]) => k === key);
    if (str && (str[2] as readonly string[]).includes(value)) (config as Record<string, string>)[str[1]] = value;
  }
  return config;
}

/** The known `key=value` pairs of sidecar text as strings (the last occurrence of a key wins). */
export function parseTopicConfigEntries(text: string): Record<string, string> {
  const known = new Set<string>([...NUMERIC_KEYS.map(([k]) => k), ...STRING_KEYS.map(([k]) => k)]);
  const entries: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    if (known.has(key)) entries[key] = line.slice(eq + 1).trim();
  }
  return entries;
}

/**
 * The sidecar text for `config`, or '' when every option is at its default (then no file is written). Values are
 * compared with the user-topic defaults of the config's backend, so an internal topic's 8 MiB segment size is
 * written, as MoonMQ writes it (semantics.md: `max_segment_size=8388608`, `backend=commitlog`,
 * `cleanup_policy=compact`).
 */
export function formatTopicConfig(config: TopicConfig): string {
  const backend = config.backend ?? 'segmented';
  const defaults: ResolvedTopicConfig = resolveTopicConfig({ backend });
  let text = '';
  for (const [key, field] of NUMERIC_KEYS) {
    const v = config[field];
    if (v !== undefined && v !== defaults[field]) text += `${key}=${formatPercentF(v)}\n`;
  }
  if (backend !== 'segmented') text += `backend=${backend}\n`;
  if (config.cleanupPolicy !== undefined && config.cleanupPolicy !== 'delete') {
    text += `cleanup_policy=${config.cleanupPolicy}\n`;
  }
  return text;
}

/** C's `%.f` (precision 0, round half to even) of a non-negative number, without exponent notation. */
export function formatPercentF(v: number): string {
  if (!Number.isFinite(v)) throw new StorageError(`topic config value ${v} is not a finite number`);
  let r = Math.round(v);
  if (Math.abs(v - Math.trunc(v)) === 0.5 && r % 2 !== 0) r -= 1;
  return BigInt(r).toString();
}

/** Reads `<topicDir>/topic.config`; a missing file is an empty config. */
export function readTopicConfig(topicDir: string): TopicConfig {
  const text = readSidecar(topicDir);
  return text === undefined ? {} : parseTopicConfig(text);
}

export function readTopicConfigEntries(topicDir: string): Record<string, string> {
  const text = readSidecar(topicDir);
  return text === undefined ? {} : parseTopicConfigEntries(text);
}

/**
 * Writes the sidecar atomically, or removes a stale one when every option is at its default. Returns whether a
 * file now exists.
 */
export function writeTopicConfig(topicDir: string, config: TopicConfig): boolean {
  const file = path.join(topicDir, TOPIC_CONFIG_FILE);
  const text = formatTopicConfig(config);
  try {
    if (text !== '') {
      writeFileAtomicSync(file, text);
      return true;
    }
    if (fs.existsSync(file)) {
      fs.unlinkSync(file);
      fsyncDirSync(topicDir);
    }
    return false;
  } catch (err) {
    throw new StorageError(`cannot write ${file}: ${(err as Error).message}`, { cause: err });
  }
}

function readSidecar(topicDir: string): string | undefined {
  const file = path.join(topicDir, TOPIC_CONFIG_FILE);
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StorageError(`cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
}

/** A segmented log's roll threshold, checked: an integer in 1..MAX_SEGMENT_SIZE_LIMIT (time-index positions are u32). */
export function checkMaxSegmentSize(bytes: number): number {
  if (!Number.isSafeInteger(bytes) || bytes <= 0 || bytes > MAX_SEGMENT_SIZE_LIMIT) {
    throw new StorageError(`max_segment_size ${bytes} must be an integer in 1..${MAX_SEGMENT_SIZE_LIMIT}`);
  }
  return bytes;
}
