/**
 * Partition choice for produced records (semantics.md §4): FNV-1a for a non-empty key; the sticky partitioner for an
 * empty key. Sticky state is per topic and shared by every connection, as MoonMQ keeps one Producer per broker.
 */
import { fnv1a32 } from '../protocol/fnv1a.js';

export const STICKY_MAX_RECORDS = 16;
export const STICKY_MAX_AGE_MS = 10;

interface StickyState {
  /** 0-based index. */
  partition: number;
  partitionCount: number;
  count: number;
  startedMs: number;
}

export class Partitioner {
  private readonly sticky = new Map<string, StickyState>();

  constructor(
    private readonly nowMs: () => number = () => performance.now(),
    private readonly random: () => number = Math.random,
  ) {}

  /** The 1-based partition id for one record; the sticky counter advances per call. */
  partitionFor(topic: string, key: Uint8Array, partitionCount: number): number {
    if (key.length > 0) return (fnv1a32(key) % partitionCount) + 1;
    const now = this.nowMs();
    const s = this.sticky.get(topic);
    if (
      s &&
      s.partitionCount === partitionCount &&
      s.count < STICKY_MAX_RECORDS &&
      now - s.startedMs < STICKY_MAX_AGE_MS
    ) {
      s.count++;
      return s.partition + 1;
    }
    let next = Math.floor(this.random() * partitionCount);
    if (next >= partitionCount) next = partitionCount - 1;
    if (s && next === s.partition && partitionCount > 1) next = (next + 1) % partitionCount;
    if (s) {
      s.partition = next;
      s.partitionCount = partitionCount;
      s.count = 1;
      s.startedMs = now;
    } else {
      this.sticky.set(topic, { partition: next, partitionCount, count: 1, startedMs: now });
    }
    return next + 1;
  }

  forget(topic: string): void {
    this.sticky.delete(topic);
  }
}
