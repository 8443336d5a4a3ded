/**
 * The broker's seam onto storage: opens a partition log with the backend a topic's sidecar names, and reads,
 * validates and writes the sidecar (storage.md §8.3). The registry never imports a backend directly.
 */
import type { PartitionLog } from '../storage/partition-log.js';

/** Sidecar keys as strings, exactly as DESCRIBE_TOPIC reports them. */
export type TopicConfigEntries = Readonly<Record<string, string>>;

export interface LogFactory {
  open(partitionDir: string, topic: string, config: TopicConfigEntries): Promise<PartitionLog>;
  /** The sidecar entries of a topic dir ({} when there is no sidecar). */
  readConfig(topicDir: string): Promise<TopicConfigEntries>;
  /** Writes the sidecar and returns the entries it now holds (defaults are not written). */
  writeConfig(topicDir: string, config: TopicConfigEntries): Promise<TopicConfigEntries>;
  /** Sidecar entries for a new user or internal topic (broker-wide segment size and retention). */
  defaultConfig(topic: string): TopicConfigEntries;
  /** Why ALTER_TOPIC_CONFIG must refuse these entries (ERR 17), or undefined. */
  configProblem(entries: ReadonlyArray<readonly [string, string]>): string | undefined;
  /** Applies altered settings (retention, segment size) to an open log where the backend supports it. */
  applyConfig(log: PartitionLog, config: TopicConfigEntries): void;
}
