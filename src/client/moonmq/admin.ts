/**
 * Topic, offset and group administration: one request and one reply each, caps checked before anything is sent.
 * Every function takes the authenticated Connection it runs on; Client delegates to these.
 */
import { UsageError } from '../../errors.js';
import { Caps } from '../../protocol/limits.js';
import { AlterTopicConfigRequest } from '../../protocol/messages/alter-topic-config.js';
import { CommitRequest } from '../../protocol/messages/commit.js';
import { OkReply } from '../../protocol/messages/control.js';
import { CreatePartitionsRequest } from '../../protocol/messages/create-partitions.js';
import { CreateTopicRequest } from '../../protocol/messages/create-topic.js';
import { DeleteGroupRequest } from '../../protocol/messages/delete-group.js';
import { DeleteTopicRequest } from '../../protocol/messages/delete-topic.js';
import {
  DescribeGroupRequest,
  GroupDescriptionReply,
  type GroupDescription,
} from '../../protocol/messages/describe-group.js';
import {
  DescribeTopicRequest,
  TopicDescriptionReply,
  type TopicDescription,
} from '../../protocol/messages/describe-topic.js';
import { GroupListReply, ListGroupsRequest, type GroupListing } from '../../protocol/messages/list-groups.js';
import { ListOffsetsRequest, OffsetsReply, type Offsets } from '../../protocol/messages/list-offsets.js';
import { ListTopicsRequest, TopicListReply } from '../../protocol/messages/list-topics.js';
import { NackAckReply, NackRequest, type NackAck } from '../../protocol/messages/nack.js';
import { ListOffsetsMode } from '../../protocol/opcodes.js';
import type { Connection } from './connection.js';
import {
  validateConfigEntries,
  validateOffset,
  validatePartitionCount,
  validatePartitionId,
  validateString,
  validateTopicName,
} from '../validate.js';

export type { GroupDescription, GroupListing, NackAck, Offsets, TopicDescription };

/** Config entries as a list of pairs or a plain object; values are always strings on the wire. */
export type ConfigEntries = Readonly<Record<string, string | number>> | readonly (readonly [string, string])[];

export async function createTopic(conn: Connection, name: string, partitions: number): Promise<void> {
  validateTopicName(name, true);
  validatePartitionCount('partitions', partitions);
  await conn.request(CreateTopicRequest, { name, numPartitions: partitions }, OkReply);
}

export async function listTopics(conn: Connection): Promise<string[]> {
  return (await conn.request(ListTopicsRequest, {}, TopicListReply)).topics;
}

export async function describeTopic(conn: Connection, name: string): Promise<TopicDescription> {
  validateTopicName(name);
  return conn.request(DescribeTopicRequest, { name }, TopicDescriptionReply);
}

export async function deleteTopic(conn: Connection, name: string): Promise<void> {
  validateTopicName(name);
  await conn.request(DeleteTopicRequest, { name }, OkReply);
}

export async function alterTopicConfig(conn: Connection, name: string, entries: ConfigEntries): Promise<void> {
  validateTopicName(name);
  // Array.isArray narrows a readonly tuple list to any[]; the cast restores the declared element type.
  const pairs: [string, string][] = Array.isArray(entries)
    ? (entries as readonly (readonly [string, string])[]).map(([k, v]): [string, string] => [k, v])
    : Object.entries(entries).map(([k, v]) => [k, String(v)]);
  if (pairs.length === 0) throw new UsageError('alterTopicConfig needs at least one entry');
  validateConfigEntries(pairs);
  await conn.request(
    AlterTopicConfigRequest,
    { name, entries: pairs.map(([key, value]) => ({ key, value })) },
    OkReply,
  );
}

export async function createPartitions(conn: Connection, name: string, total: number): Promise<void> {
  validateTopicName(name);
  validatePartitionCount('new partition total', total);
  await conn.request(CreatePartitionsRequest, { name, newTotal: total }, OkReply);
}

export interface ListOffsetsOptions {
  /** Also ask for the first offset whose record timestamp is ≥ this (the for_times section). */
  timestampMs?: bigint | number;
}

/**
 * Bounds of every partition; with `timestampMs`, also `forTimes`. A broker older than timestamp mode answers
 * bounds only, so `forTimes` is then undefined rather than an error.
 */
export async function listOffsets(conn: Connection, topic: string, options: ListOffsetsOptions = {}): Promise<Offsets> {
  validateTopicName(topic);
  if (options.timestampMs === undefined) return conn.request(ListOffsetsRequest, { topic }, OffsetsReply);
  const timestampMs = BigInt(options.timestampMs);
  validateOffset('timestampMs', timestampMs);
  return conn.request(ListOffsetsRequest, { topic, mode: ListOffsetsMode.TIMESTAMP, timestampMs }, OffsetsReply);
}

/** Stores `offset` as the group's next record to read; the connection must have fetched or subscribed first. */
export async function commit(conn: Connection, topic: string, partition: number, offset: bigint): Promise<void> {
  validateTopicName(topic);
  validatePartitionId(partition);
  validateOffset('offset', offset);
  await conn.request(CommitRequest, { topic, partition, offset }, OkReply);
}

/** `offset` is the record's own offset (not offset + 1). */
export async function nack(
  conn: Connection,
  topic: string,
  partition: number,
  offset: bigint,
  reason: string,
): Promise<NackAck> {
  validateTopicName(topic);
  validatePartitionId(partition);
  validateOffset('offset', offset);
  validateString('nack reason', reason, Caps.nackReason);
  return conn.request(NackRequest, { topic, partition, offset, reason }, NackAckReply);
}

export async function listGroups(conn: Connection): Promise<GroupListing[]> {
  return (await conn.request(ListGroupsRequest, {}, GroupListReply)).groups;
}

export async function describeGroup(conn: Connection, groupId: string): Promise<GroupDescription> {
  validateString('group id', groupId, Caps.group, 1);
  return conn.request(DescribeGroupRequest, { groupId }, GroupDescriptionReply);
}

export async function deleteGroup(conn: Connection, groupId: string): Promise<void> {
  validateString('group id', groupId, Caps.group, 1);
  await conn.request(DeleteGroupRequest, { groupId }, OkReply);
}
