/**
 * In-memory read positions per (group, topic, partition) (semantics.md §11). A cursor runs ahead of the committed
 * offset between a delivery and its commit, and is rewound by NACK; it is initialised lazily from the committed
 * offset (else 0) by whoever reads it.
 */
export class CursorTable {
  private readonly groups = new Map<string, Map<string, Map<number, bigint>>>();

  get(group: string, topic: string, partition: number): bigint | undefined {
    return this.groups.get(group)?.get(topic)?.get(partition);
  }

  set(group: string, topic: string, partition: number, offset: bigint): void {
    let topics = this.groups.get(group);
    if (!topics) this.groups.set(group, (topics = new Map<string, Map<number, bigint>>()));
    let parts = topics.get(topic);
    if (!parts) topics.set(topic, (parts = new Map<number, bigint>()));
    parts.set(partition, offset);
  }

  dropGroup(group: string): void {
    this.groups.delete(group);
  }

  dropTopic(topic: string): void {
    for (const topics of this.groups.values()) topics.delete(topic);
  }
}
