/** Human rendering for `crater share describe|list|state`. */
import type { ShareGroupDescription, ShareGroupListing } from '../../client/index.js';
import type { ShareStateDumpEntry } from '../../storage/share-state-dump.js';
import type { Column } from './table.js';

type PartitionRow = ShareGroupDescription['partitions'][number];
type MemberRow = ShareGroupDescription['members'][number];

const histogram = (p: PartitionRow): string => p.deliveryCounts.map((h) => `${h.deliveryCount}:${h.records}`).join(' ');

export const sharePartitionColumns: Column<PartitionRow>[] = [
  { header: 'TOPIC', value: (p) => p.topic },
  { header: 'PARTITION', value: (p) => p.partition, align: 'right' },
  { header: 'SPSO', value: (p) => p.spso, align: 'right' },
  { header: 'SPEO', value: (p) => p.speo, align: 'right' },
  { header: 'END', value: (p) => p.endOffset, align: 'right' },
  { header: 'LAG', value: (p) => p.endOffset - p.spso, align: 'right' },
  { header: 'AVAILABLE', value: (p) => p.available, align: 'right' },
  { header: 'ACQUIRED', value: (p) => p.acquired, align: 'right' },
  { header: 'ACKED', value: (p) => p.acknowledged, align: 'right' },
  { header: 'ARCHIVED', value: (p) => p.archived, align: 'right' },
  { header: 'OLDEST-LOCK-MS', value: (p) => p.oldestLockAgeMs, align: 'right' },
  { header: 'DELIVERIES', value: histogram },
];

export const shareMemberColumns: Column<MemberRow>[] = [
  { header: 'MEMBER', value: (m) => m.memberId },
  { header: 'ADDRESS', value: (m) => m.address },
  { header: 'ACQUIRED', value: (m) => m.acquired, align: 'right' },
];

export const shareGroupListColumns: Column<ShareGroupListing>[] = [
  { header: 'GROUP', value: (g) => g.group },
  { header: 'MEMBERS', value: (g) => g.members, align: 'right' },
  { header: 'PARTITIONS', value: (g) => g.partitions, align: 'right' },
];

export const shareStateColumns: Column<ShareStateDumpEntry>[] = [
  { header: 'PARTITION', value: (e) => e.internalPartition, align: 'right' },
  { header: 'OFFSET', value: (e) => e.offset, align: 'right' },
  { header: 'KIND', value: (e) => e.kind },
  { header: 'GROUP', value: (e) => e.group },
  { header: 'TARGET', value: (e) => (e.topic === undefined ? '' : `${e.topic}/${e.partition}`) },
  { header: 'DETAIL', value: (e) => e.detail },
];
