/**
 * A share group: its config overrides, its members (each bound to the connection that joined) and its
 * share-partitions, created on first use from `auto.offset.reset` or restored from `__share_group_state`.
 */
import type { ConnectionHandle } from '../handler.js';
import { type ShareGroupConfig, applyShareConfig } from './config.js';
import { SharePartition } from './share-partition.js';
import { partitionKey } from './share-store.js';

export interface ShareMemberState {
  readonly id: string;
  readonly conn: ConnectionHandle;
  readonly topics: readonly string[];
  lastSeen: number;
  /** Where the next fetch starts among the member's partitions, so members spread over them. */
  cursor: number;
}

export class ShareGroup {
  readonly members = new Map<string, ShareMemberState>();
  readonly partitions = new Map<string, SharePartition>();
  private config: ShareGroupConfig;

  constructor(
    readonly name: string,
    private readonly defaults: ShareGroupConfig,
    public overrides: Array<[string, string]> = [],
  ) {
    this.config = applyShareConfig(defaults, overrides);
  }

  get settings(): ShareGroupConfig {
    return this.config;
  }

  /** Validates and applies `entries` over the current overrides; returns the new override list (to persist). */
  alter(entries: ReadonlyArray<readonly [string, string]>): Array<[string, string]> {
    const merged = new Map(this.overrides);
    for (const [k, v] of entries) merged.set(k, v);
    const list = [...merged.entries()];
    this.config = applyShareConfig(this.defaults, list);
    this.overrides = list;
    return list;
  }

  partition(topic: string, partition: number): SharePartition | undefined {
    return this.partitions.get(partitionKey(topic, partition));
  }

  addPartition(p: SharePartition): SharePartition {
    this.partitions.set(partitionKey(p.topic, p.partition), p);
    return p;
  }

  /** Partitions in a stable order (topic, then partition). */
  sortedPartitions(): SharePartition[] {
    return [...this.partitions.values()].sort((a, b) =>
      a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1,
    );
  }
}
