/**
 * JSON shapes and table columns for `topic`, `group` and `offsets` (contracts: documented in each command's help
 * and tested). Offsets follow the bigint rule of json.ts.
 */
import type { GroupDescription, GroupListing, Offsets, TopicDescription } from '../../client/index.js';
import type { Column } from './table.js';

export interface TopicJson {
  name: string;
  partitions: number;
  config: Record<string, string>;
}

export function topicJson(d: TopicDescription): TopicJson {
  return {
    name: d.name,
    partitions: d.partitionCount,
    config: Object.fromEntries(d.config.map((e) => [e.key, e.value])),
  };
}

export const groupListColumns: Column<GroupListing>[] = [
  { header: 'GROUP', value: (g) => g.groupId },
  { header: 'STATE', value: (g) => g.state },
  { header: 'MEMBERS', value: (g) => g.memberCount, align: 'right' },
];

export interface MemberRow {
  memberId: string;
  topic: string;
  partitions: string;
}

export function memberRows(d: GroupDescription): MemberRow[] {
  return d.members.flatMap((m) =>
    m.topics.map((t) => ({ memberId: m.memberId, topic: t.topic, partitions: t.partitions.join(',') })),
  );
}

export const memberColumns: Column<MemberRow>[] = [
  { header: 'MEMBER', value: (r) => r.memberId },
  { header: 'TOPIC', value: (r) => r.topic },
  { header: 'PARTITIONS', value: (r) => r.partitions },
];

export const committedColumns: Column<GroupDescription['offsets'][number]>[] = [
  { header: 'TOPIC', value: (o) => o.topic },
  { header: 'PARTITION', value: (o) => o.partition, align: 'right' },
  { header: 'COMMITTED', value: (o) => o.offset, align: 'right' },
];

export interface GroupLag {
  group: string;
  /** null when the group has committed nothing on this partition (it would start at 0). */
  committed: bigint | null;
  lag: bigint;
}

export interface PartitionOffsetsJson {
  partition: number;
  earliest: bigint;
  latest: bigint;
  highWatermark: bigint;
  lso: bigint;
  groups: GroupLag[];
}

/**
 * Lag is latest − max(committed, earliest) in the topic's offset units (bytes on a segmented topic, records on a
 * commitlog topic); a cursor below the oldest retained offset moves up to it, hence the max.
 */
export function offsetsJson(
  offsets: Offsets,
  groups: readonly GroupDescription[],
  topic: string,
): PartitionOffsetsJson[] {
  return offsets.partitions.map((p) => ({
    partition: p.partition,
    earliest: p.earliest,
    latest: p.latest,
    highWatermark: p.highWatermark,
    lso: p.lso,
    groups: groups.map((g) => {
      const c = g.offsets.find((o) => o.topic === topic && o.partition === p.partition)?.offset ?? null;
      const from = c === null || c < p.earliest ? p.earliest : c;
      return { group: g.groupId, committed: c, lag: p.latest > from ? p.latest - from : 0n };
    }),
  }));
}

/** What an offset counts on a topic: bytes on the segmented backend (the default), records on commitlog. */
export type OffsetUnit = 'bytes' | 'records';

export function offsetUnit(d: TopicDescription): OffsetUnit {
  return d.config.find((e) => e.key === 'backend')?.value === 'commitlog' ? 'records' : 'bytes';
}

export function offsetColumns(groupIds: readonly string[], unit: OffsetUnit = 'bytes'): Column<PartitionOffsetsJson>[] {
  const u = ` [${unit}]`;
  return [
    { header: 'PARTITION', value: (p) => p.partition, align: 'right' },
    { header: `EARLIEST${u}`, value: (p) => p.earliest, align: 'right' },
    { header: `LATEST${u}`, value: (p) => p.latest, align: 'right' },
    { header: `HWM${u}`, value: (p) => p.highWatermark, align: 'right' },
    { header: `LSO${u}`, value: (p) => p.lso, align: 'right' },
    ...groupIds.map((id, i): Column<PartitionOffsetsJson> => ({
      header: `LAG(${id})${u}`,
      value: (p) => p.groups[i]?.lag,
      align: 'right',
    })),
  ];
}

export const resetColumns: Column<{ partition: number; current: bigint | null; target: bigint }>[] = [
  { header: 'PARTITION', value: (r) => r.partition, align: 'right' },
  { header: 'CURRENT OFFSET', value: (r) => r.current ?? '-', align: 'right' },
  { header: 'NEW OFFSET', value: (r) => r.target, align: 'right' },
];
