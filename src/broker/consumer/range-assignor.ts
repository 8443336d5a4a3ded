/**
 * Range assignment (wire.md §2.5): per topic, the members interested in it are sorted as strings; each gets
 * floor(N/M) consecutive partitions and the first N mod M members one more. Every member gets an entry for every
 * topic it subscribed to, even when it receives no partition of it.
 */

/** member id → topic → ascending 1-based partition ids. */
export type Assignment = Map<string, Map<string, number[]>>;

export interface AssignorMember {
  id: string;
  topics: readonly string[];
}

/** Partition counts of the topics the members subscribed to; a topic missing here assigns nothing. */
export function assignRange(
  members: Iterable<AssignorMember>,
  partitionCounts: ReadonlyMap<string, number>,
): Assignment {
  const result: Assignment = new Map();
  const interested = new Map<string, string[]>();
  for (const m of members) {
    const topics = new Map<string, number[]>();
    for (const t of m.topics) {
      if (topics.has(t)) continue;
      topics.set(t, []);
      let list = interested.get(t);
      if (!list) interested.set(t, (list = []));
      list.push(m.id);
    }
    result.set(m.id, topics);
  }
  for (const [topic, ids] of interested) {
    const n = partitionCounts.get(topic) ?? 0;
    if (n === 0) continue;
    ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const per = Math.floor(n / ids.length);
    const extra = n % ids.length;
    let next = 1;
    ids.forEach((id, i) => {
      const count = per + (i < extra ? 1 : 0);
      const owned = result.get(id)!.get(topic)!;
      for (let k = 0; k < count; k++) owned.push(next++);
    });
  }
  return result;
}
