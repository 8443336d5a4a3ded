/**
 * BATCH_FLAG_PARTITION (docs/extensions.md): a PRODUCE_BATCH that names its partition, as `crater produce -p N`
 * sends it. Every record goes to that partition instead of the key hash or the sticky partitioner; the append,
 * prefix and sync rules are the ordinary batch's. Not combined with IDEMPOTENT: the producer-state path keeps its
 * own partitioning and memo, and a flag it would ignore must not be accepted silently.
 */
import { ErrorCode } from '../protocol/error-codes.js';
import { BatchFlag } from '../protocol/opcodes.js';
import type { ProduceBatch } from '../protocol/messages/produce-batch.js';
import { HandlerError } from './handler.js';
import type { AppendPlan } from './produce-path.js';
import type { Topic } from './topics.js';

export function hasFixedPartition(request: Omit<ProduceBatch, 'records'>): boolean {
  return (request.flags & BatchFlag.PARTITION) !== 0;
}

/** The plan for `n` records all bound for `request.partition`, refused (ERR 1) when that is not 1..N. */
export function planFixedPartition(topic: Topic, request: ProduceBatch): AppendPlan {
  const partition = fixedPartitionOf(topic, request);
  const n = request.records.length;
  return {
    assigned: new Uint16Array(n).fill(partition),
    groups: new Map([[partition, Array.from({ length: n }, (_, i) => i)]]),
  };
}

/** The 1-based partition a PARTITION batch names, refused (ERR 1) with IDEMPOTENT or when it is not 1..N. */
export function fixedPartitionOf(topic: Topic, request: Omit<ProduceBatch, 'records'>): number {
  if (request.flags & BatchFlag.IDEMPOTENT) {
    throw new HandlerError(ErrorCode.BAD_FRAME, 'BATCH_FLAG_PARTITION cannot be combined with an idempotent batch');
  }
  const count = topic.partitions.length;
  const partition = request.partition ?? 0;
  if (partition < 1 || partition > count) {
    throw new HandlerError(
      ErrorCode.BAD_FRAME,
      `partition ${partition} out of range 1..${count} for topic '${topic.name}'`,
    );
  }
  return partition;
}
