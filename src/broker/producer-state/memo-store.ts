/**
 * Durable writes to `__producer_state` (semantics.md §6): identities, sequence memos (v2 for single records, v3 for
 * batches), the allocator watermark and tombstones. Each write is one append to the key's partition, made durable
 * before the request it serves is answered.
 *
 * Appends are synchronous, so the order of writes matches the order requests were handled; syncs of one partition
 * are coalesced (internal-topic.ts), so pipelined producers share fsyncs.
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
import { KeyedInternalStore } from '../internal-topic.js';

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
  allocator: (nextPid: bigint): StateWrite => ({
    key: Buffer.from(ALLOCATOR_KEY),
    value: encodeAllocatorValue(nextPid),
  }),
  identityTombstone: (producerName: string): StateWrite => ({ key: encodeIdentityKey(producerName), value: TOMBSTONE }),
  memoTombstone: (producerId: bigint, topic: string): StateWrite => ({
    key: encodeMemoKey(producerId, topic),
    value: TOMBSTONE,
  }),
} as const;

export class MemoStore extends KeyedInternalStore {
  /** `partitions` is the topic's live partition array (index 0 = partition 1). */
  constructor(partitions: readonly PartitionLog[], now: () => bigint) {
    super(partitions, now, producerStatePartition);
  }

  /**
   * Appends the writes in order (one append per partition touched) and returns the promise of their durability.
   * Throws when an append fails; writes before the failing partition's stay appended.
   */
  write(writes: readonly StateWrite[]): Promise<void> {
    return this.appendKeyed(writes);
  }
}
