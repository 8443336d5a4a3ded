/**
 * The accumulator's sealed batches, one queue per key (topic, or topic-partition) in send order, and the in-flight
 * slots: at most `maxInFlight` requests in all and `perKey` per key (for an idempotent sink its
 * `inFlightPerTopic`: 1, or 5 with crater's idempotent window). A batch waiting to
 * be retried goes back to the head of its queue, so a key's batches leave in order.
 */
import type { ProducerBatch } from './producer-batch.js';

export class SendQueues {
  private readonly queues = new Map<string, ProducerBatch[]>();
  private readonly inFlightByKey = new Map<string, number>();
  private outstanding = 0;

  /** `perKey` is asked on every take: an idempotent sink may allow more once it knows its broker (a window). */
  constructor(
    private readonly maxInFlight: number,
    private readonly perKey: () => number,
  ) {}

  get inFlight(): number {
    return this.outstanding;
  }

  get empty(): boolean {
    return this.queues.size === 0;
  }

  push(batch: ProducerBatch): void {
    this.queueOf(batch.key).push(batch);
  }

  /**
   * Back into its queue for a retry, before every batch created after it: batches of one key that fail together (a
   * window of idempotent batches behind one that did not land) go out again in their first order.
   */
  unshift(batch: ProducerBatch): void {
    const queue = this.queueOf(batch.key);
    const at = queue.findIndex((b) => b.order > batch.order);
    if (at < 0) queue.push(batch);
    else queue.splice(at, 0, batch);
  }

  remove(batch: ProducerBatch): void {
    const queue = this.queues.get(batch.key);
    const i = queue?.indexOf(batch) ?? -1;
    if (i < 0) return;
    queue!.splice(i, 1);
    if (queue!.length === 0) this.queues.delete(batch.key);
  }

  /** Takes the next batch that may leave now (a slot free, its key under its limit, its head ready) and counts it out. */
  take(): ProducerBatch | undefined {
    if (this.outstanding >= this.maxInFlight) return undefined;
    const perKey = this.perKey();
    for (const [key, queue] of this.queues) {
      const head = queue[0];
      if (head === undefined || head.state !== 'ready' || (this.inFlightByKey.get(key) ?? 0) >= perKey) continue;
      queue.shift();
      if (queue.length === 0) this.queues.delete(key);
      this.outstanding += 1;
      this.inFlightByKey.set(key, (this.inFlightByKey.get(key) ?? 0) + 1);
      return head;
    }
    return undefined;
  }

  /** The request of `batch` came back (or failed): its slot is free. */
  done(batch: ProducerBatch): void {
    this.outstanding -= 1;
    const n = (this.inFlightByKey.get(batch.key) ?? 1) - 1;
    if (n === 0) this.inFlightByKey.delete(batch.key);
    else this.inFlightByKey.set(batch.key, n);
  }

  private queueOf(key: string): ProducerBatch[] {
    let queue = this.queues.get(key);
    if (!queue) this.queues.set(key, (queue = []));
    return queue;
  }
}
