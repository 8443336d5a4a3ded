/**
 * Group commit of one share group's state: every SHARE_FETCH, SHARE_ACK, leave and sweep that changed the group's
 * windows asks for a flush and is answered once a flush that started after its change is durable. A flush takes
 * the snapshot of every dirty share-partition at its start, appends them in one write to `__share_group_state` and
 * waits for their fsync. While one runs, everyone who asks waits for a single next flush, started as soon as the
 * running one ends and covering all their changes (as the eager GroupCommitter does for fsyncs): the requests of
 * all consumers arriving during one fsync share the next, and snapshots are encoded once per flush, not per request.
 *
 * Durability is unchanged: a snapshot is a partition's whole window, so the latest durable one holds every change
 * made before its flush started, and no reply depending on a change leaves before that. A failed flush marks its
 * partitions dirty again (the next flush rewrites them) and rejects every request waiting on it.
 */
import type { SharePartition } from './share-partition.js';

export type WriteSnapshots = (dirty: SharePartition[]) => Promise<void>;

export class StateFlusher {
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  /** Flushes started so far (tests count them). */
  flushes = 0;

  constructor(
    private readonly partitions: () => Iterable<SharePartition>,
    private readonly write: WriteSnapshots,
  ) {}

  /** Resolves once every change made to the group's windows before this call is durable. */
  request(): Promise<void> {
    if (this.next) return this.next;
    if (!this.running) return this.start();
    this.next = this.running
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.start();
      });
    return this.next;
  }

  private start(): Promise<void> {
    const dirty: SharePartition[] = [];
    for (const p of this.partitions()) {
      if (p.dirty) {
        p.dirty = false;
        dirty.push(p);
      }
    }
    if (dirty.length === 0) return Promise.resolve();
    this.flushes++;
    const flush = this.write(dirty).catch((err: unknown) => {
      for (const p of dirty) p.dirty = true;
      throw err;
    });
    this.running = flush;
    const done = (): void => {
      if (this.running === flush) this.running = undefined;
    };
    flush.then(done, done);
    return flush;
  }
}
