/**
 * The topic registry: every topic under the data directory, one PartitionLog per partition (index 0 = partition 1).
 * Layout (storage.md §8.1): `<dataDir>/<topic>/partition-<id>/`, ids contiguous from 1, optional `topic.config`.
 * Mutations (create, grow, delete, alter) are serialised per registry so two connections cannot race on one dir.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { ErrorCode } from '../protocol/error-codes.js';
import { Limits } from '../protocol/limits.js';
import type { PartitionLog } from '../storage/partition-log.js';
import { HandlerError } from './handler.js';
import type { LogFactory, TopicConfigEntries } from './log-factory.js';
import { Partitioner } from './partitioner.js';

export interface Topic {
  readonly name: string;
  /** `__*` topics: hidden from LIST_TOPICS, refused by delete/alter/grow, never created by clients. */
  readonly internal: boolean;
  /** Index 0 is partition 1. Grows in place on CREATE_PARTITIONS. */
  readonly partitions: PartitionLog[];
  /** Keys set in the sidecar, as strings (what DESCRIBE_TOPIC reports). */
  config: TopicConfigEntries;
}

export const INTERNAL_PREFIX = '__';
const NAME_CHARS = /^[A-Za-z0-9._-]+$/;
const PARTITION_DIR = /^partition-(\d+)$/;

export function isInternalTopic(name: string): boolean {
  return name.startsWith(INTERNAL_PREFIX);
}

/** semantics.md §12: why `name` is not a valid topic name, or undefined when it is. */
export function topicNameProblem(name: string): string | undefined {
  const bytes = Buffer.byteLength(name);
  if (bytes < 1 || bytes > 249) return `topic name must be 1-249 bytes, got ${bytes}`;
  if (!NAME_CHARS.test(name)) return `topic name '${name}' may contain only [A-Za-z0-9._-]`;
  if (name.startsWith('-')) return `topic name '${name}' may not start with '-'`;
  if (name === '.' || name === '..') return `topic name '${name}' is reserved`;
  return undefined;
}

export function topicMissing(name: string): HandlerError {
  return new HandlerError(ErrorCode.TOPIC_MISSING, `topic '${name}' does not exist`);
}

export interface TopicRegistryEvents {
  onTopicDeleted?: (name: string) => void | Promise<void>;
}

export class TopicRegistry {
  private readonly topics = new Map<string, Topic>();
  readonly partitioner: Partitioner;
  private mutation: Promise<unknown> = Promise.resolve();

  constructor(
    readonly dataDir: string,
    private readonly factory: LogFactory,
    partitioner?: Partitioner,
  ) {
    this.partitioner = partitioner ?? new Partitioner();
  }

  /** Opens every topic directory under the data dir (dot-files and stray files are skipped). */
  async load(): Promise<void> {
    const entries = await fs.readdir(this.dataDir, { withFileTypes: true });
    for (const e of entries) {
      if (!e.isDirectory() || e.name.startsWith('.')) continue;
      if (topicNameProblem(e.name) !== undefined) continue;
      const topic = await this.openExisting(e.name);
      if (topic) this.topics.set(topic.name, topic);
    }
  }

  private async openExisting(name: string): Promise<Topic | undefined> {
    const dir = path.join(this.dataDir, name);
    const ids: number[] = [];
    for (const e of await fs.readdir(dir, { withFileTypes: true })) {
      const m = e.isDirectory() ? PARTITION_DIR.exec(e.name) : null;
      if (m) ids.push(Number(m[1]));
    }
    if (ids.length === 0) return undefined;
    ids.sort((a, b) => a - b);
    ids.forEach((id, i) => {
      if (id !== i + 1) {
        throw new Error(`topic '${name}': partition directories are not contiguous from 1 (found ${ids.join(', ')})`);
      }
    });
    const config = await this.factory.readConfig(dir);
    const partitions: PartitionLog[] = [];
    for (const id of ids) partitions.push(await this.factory.open(partitionDir(dir, id), name, config));
    return { name, internal: isInternalTopic(name), partitions, config };
  }

  getTopic(name: string): Topic | undefined {
    return this.topics.get(name);
  }

  /** The topic, or ERR 5 "topic 'x' does not exist". */
  requireTopic(name: string): Topic {
    const t = this.topics.get(name);
    if (!t) throw topicMissing(name);
    return t;
  }

  get size(): number {
    return this.topics.size;
  }

  /** User topics, sorted ascending, at most `limit` (LIST_TOPICS). */
  listUserTopics(limit: number = Limits.listTopics): string[] {
    const names = [...this.topics.keys()].filter((n) => !isInternalTopic(n)).sort(compareBytes);
    return names.length > limit ? names.slice(0, limit) : names;
  }

  all(): IterableIterator<Topic> {
    return this.topics.values();
  }

  /** Total fsyncs issued by every open partition (tests count them). */
  get fsyncCount(): number {
    return this.countFsyncs(() => true);
  }

  /** fsyncs issued by the partitions of user topics: those of the records produced, without the `__*` topics'. */
  get userFsyncCount(): number {
    return this.countFsyncs((name) => !isInternalTopic(name));
  }

  private countFsyncs(include: (topic: string) => boolean): number {
    let n = 0;
    for (const [name, t] of this.topics) if (include(name)) for (const p of t.partitions) n += p.fsyncCount;
    return n;
  }

  /**
   * Creates a topic. Clients go through the CREATE_TOPIC checks (`internal` false); the broker itself creates `__*`
   * topics with `internal` true and their own sidecar.
   */
  createTopic(
    name: string,
    partitions: number,
    options: { internal?: boolean; config?: TopicConfigEntries } = {},
  ): Promise<Topic> {
    return this.serialised(async () => {
      const problem = topicNameProblem(name);
      if (problem) throw new HandlerError(ErrorCode.BAD_FRAME, problem);
      if (!options.internal && isInternalTopic(name)) {
        throw new HandlerError(ErrorCode.BAD_FRAME, `topic names starting with '__' are reserved: '${name}'`);
      }
      if (!Number.isInteger(partitions) || partitions < 1 || partitions > Limits.partitions) {
        throw new HandlerError(
          ErrorCode.BAD_FRAME,
          `num_partitions must be 1..${Limits.partitions}, got ${partitions}`,
        );
      }
      if (this.topics.has(name)) throw new HandlerError(ErrorCode.INTERNAL, `topic '${name}' already exists`);
      if (!options.internal && this.userTopicCount() >= Limits.maxTopics) {
        throw new HandlerError(ErrorCode.RATE_LIMITED, `topic limit of ${Limits.maxTopics} reached`);
      }
      const dir = path.join(this.dataDir, name);
      await fs.mkdir(dir, { recursive: true });
      const wanted = options.config ?? this.factory.defaultConfig(name);
      const config = Object.keys(wanted).length > 0 ? await this.factory.writeConfig(dir, wanted) : {};
      const logs: PartitionLog[] = [];
      try {
        for (let id = 1; id <= partitions; id++)
          logs.push(await this.factory.open(partitionDir(dir, id), name, config));
      } catch (err) {
        await Promise.allSettled(logs.map((l) => l.close()));
        await fs.rm(dir, { recursive: true, force: true });
        throw err;
      }
      const topic: Topic = { name, internal: isInternalTopic(name), partitions: logs, config };
      this.topics.set(name, topic);
      return topic;
    });
  }

  /** CREATE_PARTITIONS: grows to `newTotal` (ERR 21 when not larger or over 1024; ERR 18 on `__*`). */
  createPartitions(name: string, newTotal: number): Promise<Topic> {
    return this.serialised(async () => {
      const topic = this.requireTopic(name);
      if (topic.internal) throw forbidden(name);
      const current = topic.partitions.length;
      if (!Number.isInteger(newTotal) || newTotal <= current || newTotal > Limits.partitions) {
        throw new HandlerError(
          ErrorCode.INVALID_PARTITIONS,
          `new partition count ${newTotal} must be greater than ${current} and at most ${Limits.partitions}`,
        );
      }
      const dir = path.join(this.dataDir, name);
      for (let id = current + 1; id <= newTotal; id++) {
        topic.partitions.push(await this.factory.open(partitionDir(dir, id), name, topic.config));
      }
      return topic;
    });
  }

  /** DELETE_TOPIC: closes the logs and removes the directory (ERR 18 on `__*`). */
  deleteTopic(name: string): Promise<void> {
    return this.serialised(async () => {
      const topic = this.requireTopic(name);
      if (topic.internal) throw forbidden(name);
      this.topics.delete(name);
      this.partitioner.forget(name);
      await Promise.allSettled(topic.partitions.map((p) => p.close()));
      await fs.rm(path.join(this.dataDir, name), { recursive: true, force: true });
    });
  }

  /** ALTER_TOPIC_CONFIG: validated by the factory (ERR 17), written to the sidecar, applied to open logs. */
  alterConfig(name: string, entries: ReadonlyArray<readonly [string, string]>): Promise<Topic> {
    return this.serialised(async () => {
      const topic = this.requireTopic(name);
      if (topic.internal) throw forbidden(name);
      const problem = this.factory.configProblem(entries);
      if (problem) throw new HandlerError(ErrorCode.INVALID_CONFIG, problem);
      const next: Record<string, string> = { ...topic.config };
      for (const [k, v] of entries) next[k] = v;
      topic.config = await this.factory.writeConfig(path.join(this.dataDir, name), next);
      for (const p of topic.partitions) this.factory.applyConfig(p, topic.config);
      return topic;
    });
  }

  /** Closes every partition log (fsync, checkpoint, clean-shutdown marker). */
  async closeAll(): Promise<void> {
    const all = [...this.topics.values()].flatMap((t) => t.partitions);
    this.topics.clear();
    const results = await Promise.allSettled(all.map((p) => p.close()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private userTopicCount(): number {
    let n = 0;
    for (const name of this.topics.keys()) if (!isInternalTopic(name)) n++;
    return n;
  }

  private serialised<T>(work: () => Promise<T>): Promise<T> {
    const run = this.mutation.then(work, work);
    this.mutation = run.catch(() => undefined);
    return run;
  }
}

function forbidden(name: string): HandlerError {
  return new HandlerError(ErrorCode.TOPIC_FORBIDDEN, `topic '${name}' is internal`);
}

function partitionDir(topicDir: string, id: number): string {
  return path.join(topicDir, `partition-${id}`);
}

function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
