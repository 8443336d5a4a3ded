/**
 * Per-partition watermarks: the committable offset of a partition is the first record not yet finished, or, when
 * all are, the offset after the last one (the broker's cursor past it, which the fetch loop learns per FETCH).
 * Records of a partition are registered in fetch order and may finish in any order.
 */
export interface WatermarkEntry {
  readonly offset: bigint;
  readonly next: bigint;
  done: boolean;
}

export class PartitionWatermark {
  private entries: WatermarkEntry[] = [];
  private head = 0;
  /** The offset after the last finished prefix; undefined until something finished. */
  private through: bigint | undefined;

  /** Registers a record in fetch order: its own offset and the offset of the record after it. */
  add(offset: bigint, next: bigint): WatermarkEntry {
    const e = { offset, next, done: false };
    this.entries.push(e);
    return e;
  }

  get outstanding(): number {
    return this.entries.length - this.head;
  }

  finish(e: WatermarkEntry): void {
    e.done = true;
    const entries = this.entries;
    while (this.head < entries.length && entries[this.head]!.done) this.through = entries[this.head++]!.next;
    if (this.head > 1024 && this.head * 2 > entries.length) {
      this.entries = entries.slice(this.head);
      this.head = 0;
    }
  }

  /** What to commit now: undefined when nothing was finished. */
  committable(): bigint | undefined {
    return this.through;
  }

  /** What `committable()` would be if `extra` were finished too (a transaction's tentative commit). */
  committableWith(extra: ReadonlySet<WatermarkEntry>): bigint | undefined {
    let through = this.through;
    for (let i = this.head; i < this.entries.length; i++) {
      const e = this.entries[i]!;
      if (!e.done && !extra.has(e)) break;
      through = e.next;
    }
    return through;
  }
}

export function partitionKey(topic: string, partition: number): string {
  return `${partition}:${topic}`;
}

export class Watermarks {
  private readonly parts = new Map<string, { topic: string; partition: number; mark: PartitionWatermark; committed: bigint | undefined }>();

  of(topic: string, partition: number): PartitionWatermark {
    const key = partitionKey(topic, partition);
    let p = this.parts.get(key);
    if (!p) this.parts.set(key, (p = { topic, partition, mark: new PartitionWatermark(), committed: undefined }));
    return p.mark;
  }

  /** Offsets that moved since the last `markCommitted`. */
  pending(): Array<{ topic: string; partition: number; offset: bigint }> {
    const out: Array<{ topic: string; partition: number; offset: bigint }> = [];
    for (const p of this.parts.values()) {
      const at = p.mark.committable();
      if (at !== undefined && at !== p.committed) out.push({ topic: p.topic, partition: p.partition, offset: at });
    }
    return out;
  }

  markCommitted(offsets: ReadonlyArray<{ topic: string; partition: number; offset: bigint }>): void {
    for (const o of offsets) {
      const p = this.parts.get(partitionKey(o.topic, o.partition));
      if (p && (p.committed === undefined || o.offset > p.committed)) p.committed = o.offset;
    }
  }

  /** Records registered and not finished, all partitions. */
  outstanding(): number {
    let n = 0;
    for (const p of this.parts.values()) n += p.mark.outstanding;
    return n;
  }
}
