/**
 * Durable writes to `__producer_state` (semantics.md §6): identities, sequence memos (v2 for single records, v3 for
 * batches), the allocator watermark and tombstones. Each write is one append to the key's partition, made durable
 * before the request it serves is answered.
 *
 * Appends are synchronous, so the order of writes matches the order requests were handled. Syncs of one partition
 * are coalesced: a sync asked for while one runs waits for a single follow-up, so pipelined producers share fsyncs
 * and no request waits for more than two.
 */
import type { PartitionLog } from '../../storage/partition-log.js';
import {
  ALLOCATOR_KEY,
  PRODUCER_STATE_PARTITIONS,
  PRODUCER_STATE_TOPIC,
  type SequenceMemoToStore,
  encodeAllocatorValue,
  encodeIdentityKey,
  encodeIdentityValue,
  encodeMemoKey,
  encodeMemoValue,
  producerStatePartition,
} from '../../storage/producer-state-codec.js';
import type { RecordToStore } from '../../storage/record.js';

export { PRODUCER_STATE_PARTITIONS, PRODUCER_STATE_TOPIC };

const TOMBSTONE = Buffer.alloc(0);

export interface StateWrite {
  key: Buffer;
  value: Buffer;
}

export const stateWrites = {
  identity: (producerName: string, producerId: bigint, epoch: number): StateWrite => ({
    key: encodeIdentityKey(producerName),
    value: encodeIdentityValue({ producerId, epoch }),
  }),
  memo: (producerId: bigint, topic: string, memo: SequenceMemoToStore): StateWrite => ({
    key: encodeMemoKey(producerId, topic),
    value: encodeMemoValue(memo),
  }),
  allocator: (nextPid: bigint): StateWrite => ({ key: Buffer.from(ALLOCATOR_KEY), value: encodeAllocatorValue(nextPid) }),
  identityTombstone: (producerName: string): StateWrite => ({ key: encodeIdentityKey(producerName), value: TOMBSTONE }),
  memoTombstone: (producerId: bigint, topic: string): StateWrite => ({ key: encodeMemoKey(producerId, topic), value: TOMBSTONE }),
} as const;

interface SyncSlot {
  inFlight: Promise<void> | undefined;
  next: Promise<void> | undefined;
}

export class MemoStore {
  private readonly syncs = new Map<PartitionLog, SyncSlot>();
  private readonly pending = new Set<Promise<void>>();
  /** Records appended since start (tests count them). */
  writeCount = 0;

  /** `partitions` is the topic's live partition array (index 0 = partition 1). */
  constructor(
    private readonly partitions: readonly PartitionLog[],
    private readonly now: () => bigint,
  ) {}

  /**
   * Appends the writes in order (one append per partition touched) and returns the promise of their durability.
   * Throws when an append fails; writes before the failing partition's stay appended.
   */
  write(writes: readonly StateWrite[]): Promise<void> {
    const timestamp = this.now();
    const byLog = new Map<PartitionLog, RecordToStore[]>();
    for (const w of writes) {
      const log = this.partitions[producerStatePartition(w.key, this.partitions.length) - 1]!;
      let list = byLog.get(log);
      if (!list) byLog.set(log, (list = []));
      list.push({ attrs: 0, timestamp, key: w.key, value: w.value });
    }
    for (const [log, records] of byLog) {
      const result = log.append(records);
      this.writeCount += result.offsets.length;
      if (result.error) throw result.error;
    }
    const logs = [...byLog.keys()];
    const durable = logs.length === 1 ? this.syncLog(logs[0]!) : Promise.all(logs.map((l) => this.syncLog(l))).then(() => undefined);
    return this.track(durable);
  }

  /** Waits for every sync started so far (failures are the writers' to report). */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private syncLog(log: PartitionLog): Promise<void> {
    let slot = this.syncs.get(log);
    if (!slot) this.syncs.set(log, (slot = { inFlight: undefined, next: undefined }));
    const s = slot;
    if (!s.inFlight) {
      s.inFlight = log.sync().finally(() => {
        s.inFlight = undefined;
      });
      return s.inFlight;
    }
    // The running fsync may have started before this append: one follow-up covers everyone arriving meanwhile.
    s.next ??= s.inFlight
      .catch(() => undefined)
      .then(() => {
        s.next = undefined;
        return this.syncLog(log);
      });
    return s.next;
  }

  private track(p: Promise<void>): Promise<void> {
    this.pending.add(p);
    const done = (): void => {
      this.pending.delete(p);
    };
    p.then(done, done);
    return p;
  }
}
