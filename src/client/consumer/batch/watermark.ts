/**
 * Per-partition watermarks: the committable offset of a partition is the first record not yet finished, or, when
 * all are, the offset after the last one. Offsets are opaque (byte positions on segmented topics), so "the offset
 * after" a record is only known from the log: the next record of the partition in a later FETCH, or the broker's
 * cursor past it (DESCRIBE_GROUP of the cursor group). Until then the last record's `next` is unknown and the
 * watermark stops at the record itself (committing it would re-deliver just that one record, never skip one).
 * Records of a partition are registered in fetch order and may finish in any order.
 */
export interface WatermarkEntry {
  readonly offset: bigint;
  next: bigint | undefined;
  done: boolean;
}

export class PartitionWatermark {
  private entries: WatermarkEntry[] = [];
  private head = 0;
  /** The committable offset; undefined until something finished. */
  private through: bigint | undefined;

  /** Registers a record in fetch order: its own offset and, when known, the offset of the record after it. */
  add(e: WatermarkEntry): WatermarkEntry {
    const last = this.entries[this.entries.length - 1];
    if (last && last.next === undefined) this.resolveTail(e.offset);
    this.entries.push(e);
    return e;
  }

  /** True when the last registered record's successor is not known yet. */
  get tailUnresolved(): boolean {
    const last = this.entries[this.entries.length - 1];
    return last !== undefined && last.next === undefined;
  }

  /** Sets the successor of the last registered record (from the broker's cursor). */
  resolveTail(next: bigint): void {
    const last = this.entries[this.entries.length - 1];
    if (!last || last.next !== undefined) return;
    last.next = next;
    this.advance();
  }

  get outstanding(): number {
    return this.entries.length - this.head;
  }

  finish(e: WatermarkEntry): void {
    e.done = true;
    this.advance();
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
      if (e.next === undefined) return e.offset;
      through = e.next;
    }
    return through;
  }

  private advance(): void {
    const entries = this.entries;
    while (this.head < entries.length && entries[this.head]!.done) {
      const e = entries[this.head]!;
      if (e.next === undefined) {
        this.through = e.offset;
        break;
      }
      this.through = e.next;
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > entries.length) {
      this.entries = entries.slice(this.head);
      this.head = 0;
    }
  }
}

export function partitionKey(topic: string, partition: number): string {
  return `${partition}:${topic}`;
}

export class Watermarks {
  private readonly parts = new Map<
    string,
    { topic: string; partition: number; mark: PartitionWatermark; committed: bigint | undefined }
  >();

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

  /** Whether a commit now would stop short at a finished record whose successor is not known yet. */
  wantsCursors(): boolean {
    for (const p of this.parts.values()) if (p.mark.tailUnresolved) return true;
    return false;
  }

  /** Resolves each partition's unknown tail from the cursor group's offsets (just past everything delivered). */
  resolveTails(cursors: ReadonlyArray<{ topic: string; partition: number; offset: bigint }>): void {
    for (const c of cursors) this.parts.get(partitionKey(c.topic, c.partition))?.mark.resolveTail(c.offset);
  }

  /** Records registered and not finished, all partitions. */
  outstanding(): number {
    let n = 0;
    for (const p of this.parts.values()) n += p.mark.outstanding;
    return n;
  }
}
