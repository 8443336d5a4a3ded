/**
 * JOIN_GROUP (0x10)
 *   str group_id (cap 256) · str member_id (cap 256; empty: "assign me one")
 *   u32 topic_count (1..256; 0 is ERR 1) · topic_count × str topic (cap 249)
 *
 * GROUP_ASSIGNMENT (0x89)
 *   str member_id · u32 topic_count · per topic (str topic · u32 n · n × u32 partition)
 *   topics sorted; every subscribed topic appears, even with n = 0
 *
 * The per-topic partition list is shared with GROUP_DESCRIPTION (describe-group.ts).
 */
import { DecodeError } from '../../errors.js';
import { Caps, Limits } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';
import { inEntry } from './field-path.js';

export interface JoinGroup {
  groupId: string;
  memberId: string;
  topics: string[];
}

export interface TopicPartitions {
  topic: string;
  partitions: number[];
}

export interface GroupAssignment {
  memberId: string;
  topics: TopicPartitions[];
}

/** u32 topic_count · per topic (str topic · u32 n · n × u32 partition). */
export function readTopicPartitions(r: Reader, field: string): TopicPartitions[] {
  const n = r.count(`${field}.count`, 8, Limits.joinTopics);
  const out = new Array<TopicPartitions>(n);
  let i = 0;
  try {
    for (; i < n; i++) {
      const topic = r.str('topic');
      const k = r.count('n', 4, Limits.partitions);
      const partitions = new Array<number>(k);
      let j = 0;
      try {
        for (; j < k; j++) partitions[j] = r.u32('partition');
      } catch (err) {
        throw inEntry(err, `partitions[${j}]`);
      }
      out[i] = { topic, partitions };
    }
  } catch (err) {
    throw inEntry(err, `${field}[${i}]`);
  }
  return out;
}

export function writeTopicPartitions(w: Writer, list: readonly TopicPartitions[]): void {
  w.u32(list.length);
  for (const t of list) {
    w.str(t.topic).u32(t.partitions.length);
    for (const p of t.partitions) w.u32(p);
  }
}

export const JoinGroupRequest = defineMessage<JoinGroup>({
  op: Op.JOIN_GROUP,
  name: 'JOIN_GROUP',
  encode(w, m) {
    w.str(m.groupId).str(m.memberId).u32(m.topics.length);
    for (const t of m.topics) w.str(t);
  },
  decode(r) {
    const groupId = r.str('group_id', Caps.group);
    const memberId = r.str('member_id', Caps.memberId);
    const countAt = r.offset;
    const n = r.count('topic_count', 4, Limits.joinTopics);
    if (n === 0) throw new DecodeError('topic_count', countAt, 'JOIN_GROUP needs at least 1 topic');
    const topics = new Array<string>(n);
    let i = 0;
    try {
      for (; i < n; i++) topics[i] = r.str('topic', Caps.topic);
    } catch (err) {
      throw inEntry(err, `topics[${i}]`);
    }
    return { groupId, memberId, topics };
  },
});

export const GroupAssignmentReply = defineMessage<GroupAssignment>({
  op: Op.GROUP_ASSIGNMENT,
  name: 'GROUP_ASSIGNMENT',
  encode(w, m) {
    w.str(m.memberId);
    writeTopicPartitions(w, m.topics);
  },
  decode(r) {
    return { memberId: r.str('member_id'), topics: readTopicPartitions(r, 'topics') };
  },
});
