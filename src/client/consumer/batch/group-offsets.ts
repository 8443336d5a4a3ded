/**
 * Offsets for the batch consumer's group. The broker commits a pull connection's group as soon as it has sent
 * records (semantics.md §11), which is at-most-once for records still being processed. So the batch consumer
 * fetches as a private cursor group `<group>.crater-cursor` and keeps the user's group for watermarks only: those
 * are committed through a durable producer's transaction holding nothing but TXN_OFFSET_COMMIT, which needs no
 * FETCH as that group (a COMMIT would) and so never moves it past unfinished records. At start the cursor group is
 * set to the group's committed offsets (0, "from the start", where it has none), so fetching resumes exactly at the
 * first unfinished record. Everything is core protocol: it works on MoonMQ too. On Kafka (partitions from 0) the
 * same holds through the backend seam: the cursor group is a group member's, its start stored through the admin
 * client (Backend.storeGroupOffsets), and the user's group is committed by the control producer's transactions.
 *
 * The control producer's name is `crater-batch.<group>`: a second instance of the same batch consumer fences the
 * first one's commits (ERR 50), one more guard for the seed's "one batch consumer per group".
 */
import { BrokerError, UsageError } from '../../../errors.js';
import { ErrorCode } from '../../../protocol/error-codes.js';
import type { Backend, BackendProducer } from '../../backend.js';

export const CURSOR_GROUP_SUFFIX = '.crater-cursor';
export const CONTROL_PRODUCER_PREFIX = 'crater-batch.';
/** Room for the suffixes inside the 256-byte group and producer-name caps. */
export const MAX_BATCH_GROUP_BYTES = 200;

export interface OffsetEntry {
  topic: string;
  partition: number;
  offset: bigint;
}

export function cursorGroupOf(group: string): string {
  if (Buffer.byteLength(group) > MAX_BATCH_GROUP_BYTES)
    throw new UsageError(`a batch consumer's group is at most ${MAX_BATCH_GROUP_BYTES} bytes`);
  return group + CURSOR_GROUP_SUFFIX;
}

/** Kafka's GROUP_ID_NOT_FOUND. */
const KAFKA_GROUP_ID_NOT_FOUND = 'GROUP_ID_NOT_FOUND';

export async function committedOffsets(backend: Backend, group: string): Promise<OffsetEntry[]> {
  try {
    return (await backend.describeGroup(group)).offsets;
  } catch (error) {
    const missing =
      backend.kind === 'kafka'
        ? error instanceof BrokerError && error.errorName === KAFKA_GROUP_ID_NOT_FOUND
        : error instanceof BrokerError && error.errorCode === ErrorCode.GROUP_MISSING;
    if (missing) return [];
    throw error;
  }
}

/** Commits `offsets` for `group` in one transaction of `producer` (chunks of 1,024 entries). */
export async function commitInTransaction(
  producer: BackendProducer,
  group: string,
  offsets: readonly OffsetEntry[],
): Promise<void> {
  if (offsets.length === 0) return;
  await producer.beginTransaction();
  try {
    for (let i = 0; i < offsets.length; i += 1024)
      await producer.sendOffsetsToTransaction(group, offsets.slice(i, i + 1024));
  } catch (error) {
    await producer.abortTransaction().catch(() => {});
    throw error;
  }
  await producer.commitTransaction();
}

/**
 * The entries of `positions` the cursor group does not start at already: its committed offset, or 0 where it has
 * none (semantics.md: a group with no committed offset starts at 0). Empty for a fresh group whose user group has
 * no commits either, which then needs no transaction before its first FETCH.
 */
export function cursorMoves(positions: readonly OffsetEntry[], cursor: readonly OffsetEntry[]): OffsetEntry[] {
  const at = new Map(cursor.map((o) => [`${o.partition}:${o.topic}`, o.offset]));
  return positions.filter((p) => (at.get(`${p.partition}:${p.topic}`) ?? 0n) !== p.offset);
}

/**
 * An empty transaction of the control producer: its durable name fences an older instance of the same batch
 * consumer (ERR 50 on that one's commits) even when the start needed no transaction.
 */
export async function fenceOlder(producer: BackendProducer): Promise<void> {
  await producer.beginTransaction();
  await producer.commitTransaction();
}

/**
 * Every partition of `topics` → the group's committed offset, or the start where it has none: 0 on MoonMQ's
 * protocol ("from the start"), the log start offset on Kafka (which refuses an offset below it).
 */
export async function startPositions(
  backend: Backend,
  group: string,
  topics: readonly string[],
): Promise<OffsetEntry[]> {
  const committed = new Map(
    (await committedOffsets(backend, group)).map((o) => [`${o.partition}:${o.topic}`, o.offset]),
  );
  const out: OffsetEntry[] = [];
  for (const topic of topics) {
    const { partitionCount } = await backend.describeTopic(topic);
    const earliest =
      backend.kind === 'kafka'
        ? new Map((await backend.listOffsets(topic)).partitions.map((p) => [p.partition, p.earliest]))
        : undefined;
    for (let i = 0; i < partitionCount; i++) {
      const partition = backend.firstPartition + i;
      const start = earliest?.get(partition) ?? 0n;
      out.push({ topic, partition, offset: committed.get(`${partition}:${topic}`) ?? start });
    }
  }
  return out;
}
