/**
 * Topic, offset and group administration on a Kafka cluster, shaped like the MoonMQ backend's replies so the
 * commands render both the same way. Units are Kafka's: partitions from 0, offsets as record counts; a topic's
 * config lists the entries set on the topic itself (what `kafka-configs --describe` shows), not every default.
 */
import {
  type Admin,
  ConfigResourceTypes,
  ConfigSources,
  FetchIsolationLevels,
  IncrementalAlterConfigOperationTypes,
} from '@platformatic/kafka';
import type { BackendConfigEntries, GroupDescription, GroupListing, Offsets, TopicDescription } from '../backend.js';
import { UsageError } from '../../errors.js';
import { validatePartitionCount, validateTopicName } from '../validate.js';
import { kafkaCall } from './errors.js';

/** Kafka's "earliest" and "latest" timestamps in ListOffsets. */
const EARLIEST = -2n;
const LATEST = -1n;

export async function createTopic(admin: Admin, name: string, partitions: number): Promise<void> {
  validateTopicName(name, true);
  validatePartitionCount('partitions', partitions);
  // replicas -1: the cluster's default.replication.factor.
  await kafkaCall(`create topic ${name}`, () => admin.createTopics({ topics: [name], partitions, replicas: -1 }));
}

export async function listTopics(admin: Admin): Promise<string[]> {
  const topics = await kafkaCall('list topics', () => admin.listTopics({ includeInternals: true }));
  return [...topics].sort();
}

export async function partitionCount(admin: Admin, name: string): Promise<number> {
  validateTopicName(name);
  const metadata = await kafkaCall(`describe topic ${name}`, () =>
    admin.metadata({ topics: [name], forceUpdate: true }),
  );
  const topic = metadata.topics.get(name);
  if (!topic) throw new UsageError(`topic ${name} is not in the cluster's metadata`);
  return topic.partitionsCount;
}

export async function describeTopic(admin: Admin, name: string): Promise<TopicDescription> {
  const count = await partitionCount(admin, name);
  const [described] = await kafkaCall(`describe topic ${name}`, () =>
    admin.describeConfigs({ resources: [{ resourceType: ConfigResourceTypes.TOPIC, resourceName: name }] }),
  );
  const config = (described?.configs ?? [])
    .filter((c) => c.configSource === ConfigSources.TOPIC_CONFIG && c.value !== null)
    .map((c) => ({ key: c.name, value: c.value ?? '' }));
  return { name, partitionCount: count, config };
}

export async function deleteTopic(admin: Admin, name: string): Promise<void> {
  validateTopicName(name);
  await kafkaCall(`delete topic ${name}`, () => admin.deleteTopics({ topics: [name] }));
}

/** Kafka's own config names (retention.ms, segment.bytes, cleanup.policy, ...): set incrementally, the rest kept. */
export async function alterTopicConfig(admin: Admin, name: string, entries: BackendConfigEntries): Promise<void> {
  validateTopicName(name);
  const pairs: [string, string][] = Array.isArray(entries)
    ? (entries as readonly (readonly [string, string])[]).map(([k, v]): [string, string] => [k, v])
    : Object.entries(entries).map(([k, v]) => [k, String(v)]);
  if (pairs.length === 0) throw new UsageError('alterTopicConfig needs at least one entry');
  const configs = pairs.map(([key, value]) => ({
    name: key,
    configOperation: IncrementalAlterConfigOperationTypes.SET,
    value,
  }));
  await kafkaCall(`alter topic ${name}`, () =>
    admin.incrementalAlterConfigs({
      resources: [{ resourceType: ConfigResourceTypes.TOPIC, resourceName: name, configs }],
    }),
  );
}

export async function createPartitions(admin: Admin, name: string, total: number): Promise<void> {
  validateTopicName(name);
  validatePartitionCount('new partition total', total);
  await kafkaCall(`add partitions to ${name}`, () =>
    admin.createPartitions({ topics: [{ name, count: total, assignments: null }] }),
  );
}

async function offsetsAt(
  admin: Admin,
  topic: string,
  count: number,
  timestamp: bigint,
  committed: boolean,
): Promise<Map<number, bigint>> {
  const partitions = Array.from({ length: count }, (_, partitionIndex) => ({ partitionIndex, timestamp }));
  const isolationLevel = committed ? FetchIsolationLevels.READ_COMMITTED : FetchIsolationLevels.READ_UNCOMMITTED;
  const [listed] = await kafkaCall(`list offsets of ${topic}`, () =>
    admin.listOffsets({ topics: [{ name: topic, partitions }], isolationLevel }),
  );
  return new Map((listed?.partitions ?? []).map((p) => [p.partitionIndex, p.offset]));
}

/**
 * Per partition: earliest (log start), latest and highWatermark (both the high watermark: a Kafka client never sees
 * the leader's log end past it), lso (read_committed's end). With `timestampMs`, forTimes holds each partition's
 * first offset at or after it (flag 1 = found).
 */
export async function listOffsets(
  admin: Admin,
  topic: string,
  options: { timestampMs?: bigint | number } = {},
): Promise<Offsets> {
  const count = await partitionCount(admin, topic);
  const [earliest, latest, lso] = await Promise.all([
    offsetsAt(admin, topic, count, EARLIEST, false),
    offsetsAt(admin, topic, count, LATEST, false),
    offsetsAt(admin, topic, count, LATEST, true),
  ]);
  const partitions = Array.from({ length: count }, (_, partition) => {
    const hw = latest.get(partition) ?? 0n;
    return {
      partition,
      earliest: earliest.get(partition) ?? 0n,
      latest: hw,
      highWatermark: hw,
      lso: lso.get(partition) ?? hw,
      flags: 0,
    };
  });
  if (options.timestampMs === undefined) return { partitions };
  const at = await offsetsAt(admin, topic, count, BigInt(options.timestampMs), false);
  const forTimes = partitions.map((p) => {
    const offset = at.get(p.partition) ?? -1n;
    return offset < 0n
      ? { partition: p.partition, offset: p.latest, flags: 0 }
      : { partition: p.partition, offset, flags: 1 };
  });
  return { partitions, forTimes };
}

export async function listGroups(admin: Admin): Promise<GroupListing[]> {
  const groups = await kafkaCall('list groups', () => admin.listGroups());
  const ids = [...groups.keys()].sort();
  if (ids.length === 0) return [];
  const described = await kafkaCall('describe groups', () => admin.describeGroups({ groups: ids }));
  return ids.map((id) => ({
    groupId: id,
    state: groups.get(id)!.state,
    memberCount: described.get(id)?.members.size ?? 0,
  }));
}

export async function describeGroup(admin: Admin, groupId: string): Promise<GroupDescription> {
  if (groupId === '') throw new UsageError('group id must not be empty');
  const described = await kafkaCall(`describe group ${groupId}`, () => admin.describeGroups({ groups: [groupId] }));
  const group = described.get(groupId);
  const [listed] = await kafkaCall(`list offsets of group ${groupId}`, () =>
    admin.listConsumerGroupOffsets({ groups: [groupId] }),
  );
  const offsets = (listed?.topics ?? []).flatMap((t) =>
    t.partitions
      .filter((p) => p.committedOffset >= 0n)
      .map((p) => ({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset })),
  );
  offsets.sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
  const members = [...(group?.members.values() ?? [])].map((m) => ({
    memberId: m.id,
    topics: [...(m.assignments?.values() ?? [])].map((a) => ({
      topic: a.topic,
      partitions: [...a.partitions].sort((x, y) => x - y),
    })),
  }));
  return { groupId, state: group?.state ?? 'DEAD', members, offsets };
}

export async function deleteGroup(admin: Admin, groupId: string): Promise<void> {
  if (groupId === '') throw new UsageError('group id must not be empty');
  await kafkaCall(`delete group ${groupId}`, () => admin.deleteGroups({ groups: [groupId] }));
}

/** Stores offsets for a group with no live member (Kafka refuses this for a group that has members). */
export async function alterGroupOffsets(
  admin: Admin,
  groupId: string,
  topic: string,
  offsets: readonly { partition: number; offset: bigint }[],
): Promise<void> {
  await kafkaCall(`commit offsets of group ${groupId}`, () =>
    admin.alterConsumerGroupOffsets({
      groupId,
      topics: [{ name: topic, partitionOffsets: offsets.map((o) => ({ ...o })) }],
    }),
  );
}
