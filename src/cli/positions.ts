/**
 * Where a group should read from, as `consume --from` and `group reset-offsets --to` take it (kcat's `-o`):
 *
 *   beginning | earliest   each partition's earliest retained offset
 *   end | latest           each partition's log end: only records produced from now on
 *   OFFSET                 that offset in every chosen partition (an opaque cursor: a byte position on segmented
 *                          topics, a record count on commitlog ones; take it from `consume -f %o` or `--json`)
 *   -N                     the last N records of each partition
 *   @TIMESTAMP_MS          the first record whose broker timestamp is ≥ TIMESTAMP_MS (LIST_OFFSETS timestamp mode)
 *
 * A position becomes one target offset per partition, and the targets are committed for the group. MoonMQ's
 * protocol has no "seek": COMMIT stores any offset, but only on a connection that has fetched as the group, so a
 * side connection FETCHes one record (whatever it gets is dropped, the commits overwrite it) and then commits. On
 * Kafka the offsets are stored through the admin client (Backend.storeGroupOffsets), which Kafka accepts only while
 * the group has no live member.
 */
import { randomUUID } from 'node:crypto';
import type { Backend as Client } from '../client/backend.js';
import { UsageError } from '../errors.js';

export type Position =
  | { kind: 'earliest' }
  | { kind: 'latest' }
  | { kind: 'offset'; offset: bigint }
  | { kind: 'last'; count: number }
  | { kind: 'timestamp'; timestampMs: bigint };

const WORDS: Readonly<Record<string, Position>> = {
  beginning: { kind: 'earliest' },
  earliest: { kind: 'earliest' },
  end: { kind: 'latest' },
  latest: { kind: 'latest' },
};

/** Parses a position; `committed` is the caller's business (it means "do not move"). */
export function parsePosition(text: string): Position {
  const word = WORDS[text];
  if (word) return word;
  if (/^\d+$/.test(text)) return { kind: 'offset', offset: BigInt(text) };
  if (/^-\d+$/.test(text) && Number(text) < 0) return { kind: 'last', count: Number(text.slice(1)) };
  if (/^@\d+$/.test(text)) return { kind: 'timestamp', timestampMs: BigInt(text.slice(1)) };
  throw new UsageError(
    `position "${text}": expected beginning, end, OFFSET, -N (last N per partition) or @TIMESTAMP_MS`,
  );
}

export type Targets = Map<number, bigint>;

function chosen(partitions: readonly number[] | undefined, partition: number): boolean {
  return partitions === undefined || partitions.includes(partition);
}

/** Refuses a partition `topic` does not have, in the backend's numbering (MoonMQ from 1, Kafka from 0). */
export function checkPartitions(
  client: Client,
  topic: string,
  count: number,
  partitions: readonly number[] | undefined,
): void {
  const first = client.firstPartition;
  for (const p of partitions ?? []) {
    if (p < first || p >= first + count)
      throw new UsageError(
        `partition ${p} does not exist: ${topic} has partitions ${first}..${first + count - 1} (${client.kind} numbers them from ${first})`,
      );
  }
}

/** The offset to commit for each chosen partition of `topic`. */
export async function resolveTargets(
  client: Client,
  open: () => Promise<Client>,
  topic: string,
  position: Position,
  partitions?: readonly number[],
): Promise<Targets> {
  const bounds = await client.listOffsets(topic);
  checkPartitions(client, topic, bounds.partitions.length, partitions);
  const targets: Targets = new Map();
  if (position.kind === 'last') {
    const tails = await lastOffsets(open, topic, position.count);
    for (const p of bounds.partitions)
      if (chosen(partitions, p.partition)) targets.set(p.partition, tails.get(p.partition) ?? p.earliest);
    return targets;
  }
  if (position.kind === 'timestamp') {
    const { forTimes } = await client.listOffsets(topic, { timestampMs: position.timestampMs });
    if (forTimes === undefined)
      throw new UsageError(`${client.address} does not answer LIST_OFFSETS in timestamp mode`);
    for (const t of forTimes) if (chosen(partitions, t.partition)) targets.set(t.partition, t.offset);
    return targets;
  }
  for (const p of bounds.partitions) {
    if (!chosen(partitions, p.partition)) continue;
    targets.set(
      p.partition,
      position.kind === 'earliest' ? p.earliest : position.kind === 'latest' ? p.latest : position.offset,
    );
  }
  return targets;
}

/**
 * Partition → offset of the N-th record from the end, for partitions holding at least N records. Offsets are
 * opaque (byte positions on segmented topics), so "LEO minus N" means nothing: the partition is read once through a
 * throwaway group, keeping the last N offsets of each partition, and the group is deleted afterwards.
 */
async function lastOffsets(open: () => Promise<Client>, topic: string, n: number): Promise<Targets> {
  const group = `crater-scan-${randomUUID().slice(0, 8)}`;
  const scan = await open();
  const rings = new Map<number, bigint[]>();
  try {
    for (;;) {
      const { records } = await scan.fetch(topic, group, { maxRecords: 1000 });
      if (records.length === 0) break;
      for (const r of records) {
        if (r.topic !== topic) continue;
        const ring = rings.get(r.partition) ?? [];
        ring.push(r.offset);
        if (ring.length > n) ring.shift();
        rings.set(r.partition, ring);
      }
    }
  } finally {
    await scan.deleteGroup(group).catch(() => {});
    await scan.close();
  }
  const out: Targets = new Map();
  for (const [partition, ring] of rings) if (ring.length > 0) out.set(partition, ring[0]!);
  return out;
}

/** Commits `targets` as `group`'s next offsets on `topic`, through a side connection (see the file comment). */
export async function commitTargets(
  open: () => Promise<Client>,
  topic: string,
  group: string,
  targets: Targets,
  timeoutMs: number,
): Promise<void> {
  if (targets.size === 0) return;
  const side = await open();
  try {
    if (side.storeGroupOffsets) {
      await side.storeGroupOffsets(
        group,
        [...targets].map(([partition, offset]) => ({ topic, partition, offset })),
      );
      return;
    }
    const { records } = await side.fetch(topic, group, { maxRecords: 1, timeoutMs });
    // The FETCH moved the group past what it returned; a partition not being reset gets that record back.
    for (const r of records) if (!targets.has(r.partition)) await side.commit(topic, r.partition, r.offset);
    for (const [partition, offset] of targets) await side.commit(topic, partition, offset);
  } finally {
    await side.close();
  }
}
