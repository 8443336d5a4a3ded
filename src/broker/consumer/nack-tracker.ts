/**
 * Delivery attempts per (group, topic, partition, offset), in memory only (semantics.md §11): a restart forgets
 * them, which only restarts the count, an acceptable at-least-once outcome. The map is bounded; when full the
 * oldest counter goes, which again only delays dead-lettering for that record.
 */
export const DEFAULT_MAX_TRACKED = 4_096;

interface AttemptKey {
  group: string;
  topic: string;
  partition: number;
  offset: bigint;
}

export class NackTracker {
  /** Insertion-ordered, so the first entry is the oldest. */
  private readonly attempts = new Map<string, { key: AttemptKey; count: number }>();

  constructor(private readonly maxTracked = DEFAULT_MAX_TRACKED) {}

  /** Counts one more failed delivery and returns the total so far. */
  record(key: AttemptKey): number {
    const id = idOf(key);
    const entry = this.attempts.get(id);
    const count = (entry?.count ?? 0) + 1;
    this.attempts.delete(id);
    if (!entry && this.attempts.size >= this.maxTracked) {
      const oldest = this.attempts.keys().next().value;
      if (oldest !== undefined) this.attempts.delete(oldest);
    }
    this.attempts.set(id, { key, count });
    return count;
  }

  count(key: AttemptKey): number {
    return this.attempts.get(idOf(key))?.count ?? 0;
  }

  clear(key: AttemptKey): void {
    this.attempts.delete(idOf(key));
  }

  dropGroup(group: string): void {
    for (const [id, e] of this.attempts) if (e.key.group === group) this.attempts.delete(id);
  }

  dropTopic(topic: string): void {
    for (const [id, e] of this.attempts) if (e.key.topic === topic) this.attempts.delete(id);
  }
}

/** Length-prefixed parts, so no group or topic name can collide with another pair. */
function idOf(k: AttemptKey): string {
  return `${k.group.length}:${k.group}${k.topic.length}:${k.topic}${k.partition}:${k.offset}`;
}
