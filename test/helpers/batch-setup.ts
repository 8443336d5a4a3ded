/**
 * What the batch-consumer integration tests share: filling a topic with numbered records, and reading a group's
 * committed offsets and a topic's log ends per partition (to check that a group committed exactly to the end).
 */
import type { Client } from '../../src/client/index.js';

/** Produces `n` records keyed k0.. with values `${prefix}0`.. in one batch. */
export const fill = (c: Client, topic: string, n: number, prefix = 'v') =>
  c.produceBatch(
    topic,
    Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `${prefix}${i}` })),
  );

/** The group's committed offset per partition of `topic` (empty when the group does not exist yet). */
export async function committed(c: Client, group: string, topic: string): Promise<Map<number, bigint>> {
  const d = await c
    .describeGroup(group)
    .catch(() => ({ offsets: [] as Array<{ topic: string; partition: number; offset: bigint }> }));
  return new Map(d.offsets.filter((o) => o.topic === topic).map((o) => [o.partition, o.offset]));
}

/** The log end offset per partition of `topic`. */
export async function ends(c: Client, topic: string): Promise<Map<number, bigint>> {
  return new Map((await c.listOffsets(topic)).partitions.map((p) => [p.partition, p.latest]));
}
