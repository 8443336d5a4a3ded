/**
 * DESCRIBE_GROUP (0x1D)   str group_id (cap 256)
 *
 * GROUP_DESCRIPTION (0x90)
 *   str group_id · str state
 *   u32 members · per member (str member_id · u32 topics · per topic (str topic · u32 n · n × u32 partition))
 *   u32 offsets · offsets × (str topic · u32 partition · u64 offset)
 *   members sorted by id, each member's topics sorted, offsets sorted by (topic, partition)
 */
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';
import { inEntry } from './field-path.js';
import { type TopicPartitions, readTopicPartitions, writeTopicPartitions } from './join-group.js';

export interface DescribeGroup {
  groupId: string;
}

export interface GroupMemberDescription {
  memberId: string;
  topics: TopicPartitions[];
}

export interface CommittedOffset {
  topic: string;
  partition: number;
  offset: bigint;
}

export interface GroupDescription {
  groupId: string;
  state: string;
  members: GroupMemberDescription[];
  offsets: CommittedOffset[];
}

export const DescribeGroupRequest = defineMessage<DescribeGroup>({
  op: Op.DESCRIBE_GROUP,
  name: 'DESCRIBE_GROUP',
  encode(w, m) {
    w.str(m.groupId);
  },
  decode(r) {
    return { groupId: r.str('group_id', Caps.group) };
  },
});

export const GroupDescriptionReply = defineMessage<GroupDescription>({
  op: Op.GROUP_DESCRIPTION,
  name: 'GROUP_DESCRIPTION',
  encode(w, m) {
    w.str(m.groupId).str(m.state).u32(m.members.length);
    for (const member of m.members) {
      w.str(member.memberId);
      writeTopicPartitions(w, member.topics);
    }
    w.u32(m.offsets.length);
    for (const o of m.offsets) w.str(o.topic).u32(o.partition).u64(o.offset);
  },
  decode(r) {
    const groupId = r.str('group_id');
    const state = r.str('state');
    const memberCount = r.count('members', 8);
    const members = new Array<GroupMemberDescription>(memberCount);
    let i = 0;
    try {
      for (; i < memberCount; i++) {
        members[i] = { memberId: r.str('member_id'), topics: readTopicPartitions(r, 'topics') };
      }
    } catch (err) {
      throw inEntry(err, `members[${i}]`);
    }
    const offsetCount = r.count('offsets', 16);
    const offsets = new Array<CommittedOffset>(offsetCount);
    try {
      for (i = 0; i < offsetCount; i++) {
        offsets[i] = { topic: r.str('topic'), partition: r.u32('partition'), offset: r.u64('offset') };
      }
    } catch (err) {
      throw inEntry(err, `offsets[${i}]`);
    }
    return { groupId, state, members, offsets };
  },
});
