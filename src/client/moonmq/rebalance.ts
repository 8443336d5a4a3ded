/**
 * How a joined Consumer follows its group's rebalances. The MoonMQ wire has no generation and never tells a member
 * that its share changed: the broker rebalances inside the JOIN, LEAVE or eviction that causes it and reapplies
 * the assignment at every FETCH (semantics.md §11). So the consumer watches: every checkIntervalMs (and when asked)
 * it DESCRIBE_GROUPs its group and compares its own share with the one it holds. A difference is a new generation
 * (counted here, starting at 1 with the JOIN); it is applied before the next poll, never in the middle of handing
 * out a FETCH's records: the revoked and assigned partitions are computed, the listener runs (awaited), and only
 * then does the consumer fetch again. An absent member (evicted after missing heartbeats) joins again under the
 * same member id.
 *
 * What a revocation means here: a FETCH answered before the rebalance already delivered its records, and the
 * broker committed past them as it sent them; those records are this member's to process, and the new owner starts
 * after them, at the group's cursor. Dropping them would lose them. No FETCH after the rebalance returns a revoked
 * partition (the broker filters it), so a revoked partition's delivery stops at the rebalance, and an assigned one
 * resumes from where the group stands (its committed offset when no member read it since, else the cursor the last
 * owner left). `commit()` in the listener moves a revoked partition's committed offset, which the new owner may
 * already have moved further: the listener is the place to flush application state, not to rewind.
 */
import type { TopicPartitions } from '../../protocol/messages/join-group.js';
import type { GroupAssignment } from './group-membership.js';

export interface TopicPartition {
  topic: string;
  partition: number;
}

export interface RebalanceEvent {
  /** The consumer's count of assignments it observed: 1 is the JOIN's, each change adds one. */
  generation: number;
  assignment: GroupAssignment;
  /** Partitions this member owned before and does not own now. */
  revoked: TopicPartition[];
  /** Partitions this member owns now and did not before. */
  assigned: TopicPartition[];
}

export type RebalanceListener = (event: RebalanceEvent) => void | Promise<void>;

function pairs(topics: readonly TopicPartitions[]): Map<string, TopicPartition> {
  const out = new Map<string, TopicPartition>();
  for (const t of topics) for (const p of t.partitions) out.set(`${p}@${t.topic}`, { topic: t.topic, partition: p });
  return out;
}

/** What moved from `before` to `after`; both empty when the shares are the same. */
export function assignmentDiff(
  before: readonly TopicPartitions[],
  after: readonly TopicPartitions[],
): { revoked: TopicPartition[]; assigned: TopicPartition[] } {
  const old = pairs(before);
  const now = pairs(after);
  const byName = (a: TopicPartition, b: TopicPartition): number =>
    a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1;
  return {
    revoked: [...old]
      .filter(([k]) => !now.has(k))
      .map(([, v]) => v)
      .sort(byName),
    assigned: [...now]
      .filter(([k]) => !old.has(k))
      .map(([, v]) => v)
      .sort(byName),
  };
}
