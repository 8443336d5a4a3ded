/**
 * Binds the registry's LogFactory seam to the storage backends: the sidecar (storage/topic-config.ts) picks the
 * backend and its options; `__*` topics default to the commit log with internal segment sizes.
 */
import { CommitLog } from '../storage/commit-log.js';
import type { PartitionLog } from '../storage/partition-log.js';
import { SegmentedLog, type SegmentedLogFaults } from '../storage/segmented-log.js';
import {
  MAX_SEGMENT_SIZE_LIMIT,
  type TopicConfig,
  parseTopicConfig,
  readTopicConfigEntries,
  resolveTopicConfig,
  writeTopicConfig,
} from '../storage/topic-config.js';
import type { BrokerConfig } from './config.js';
import type { LogFactory, TopicConfigEntries } from './log-factory.js';
import { isInternalTopic } from './topics.js';

/** The keys ALTER_TOPIC_CONFIG may change: all numeric. `backend` is immutable, anything else unknown. */
const ALTERABLE_KEYS = new Set(['max_segment_size', 'retention', 'cleaner_interval', 'max_log_bytes']);

export function toTopicConfig(entries: TopicConfigEntries): TopicConfig {
  return parseTopicConfig(
    Object.entries(entries)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
  );
}

export interface StorageLogFactoryOptions {
  /** Test hook: applied to every segmented log opened (storage's fault injection). */
  faults?: SegmentedLogFaults;
}

export function storageLogFactory(config: BrokerConfig, options: StorageLogFactoryOptions = {}): LogFactory {
  return {
    async open(partitionDir: string, topic: string, entries: TopicConfigEntries): Promise<PartitionLog> {
      const resolved = resolveTopicConfig(toTopicConfig(entries), isInternalTopic(topic));
      if (resolved.backend === 'commitlog') {
        return CommitLog.open(partitionDir, {
          segmentBytes: resolved.maxSegmentSize,
          cleanupPolicy: resolved.cleanupPolicy,
          maxLogBytes: resolved.maxLogBytes,
        });
      }
      const log = await SegmentedLog.open(partitionDir, { maxSegmentSize: resolved.maxSegmentSize, create: true });
      if (options.faults) log.faults = options.faults;
      return log;
    },

    async readConfig(topicDir: string): Promise<TopicConfigEntries> {
      return readTopicConfigEntries(topicDir);
    },

    async writeConfig(topicDir: string, entries: TopicConfigEntries): Promise<TopicConfigEntries> {
      writeTopicConfig(topicDir, toTopicConfig(entries));
      return readTopicConfigEntries(topicDir);
    },

    defaultConfig(topic: string): TopicConfigEntries {
      if (isInternalTopic(topic)) return {};
      const entries: Record<string, string> = {};
      if (config.segmentBytes !== undefined) entries.max_segment_size = String(config.segmentBytes);
      if (config.retentionMs !== undefined)
        entries.retention = String(Math.max(1, Math.round(config.retentionMs / 1000)));
      return entries;
    },

    configProblem(entries): string | undefined {
      for (const [key, value] of entries) {
        if (key === 'backend') return `config key 'backend' is immutable`;
        if (!ALTERABLE_KEYS.has(key)) return `unknown config key '${key}'`;
        const n = Number(value);
        if (value.trim() === '' || !Number.isFinite(n)) return `config '${key}' needs a number, got '${value}'`;
        if (n <= 0) return `config '${key}' must be greater than 0, got ${value}`;
        if (key === 'max_segment_size' && n > MAX_SEGMENT_SIZE_LIMIT) {
          return `config 'max_segment_size' must be at most ${MAX_SEGMENT_SIZE_LIMIT}, got ${value}`;
        }
      }
      return undefined;
    },

    applyConfig(log: PartitionLog, entries: TopicConfigEntries): void {
      const resolved = resolveTopicConfig(toTopicConfig(entries));
      if (log instanceof SegmentedLog) log.maxSegmentSize = resolved.maxSegmentSize;
    },
  };
}
