/**
 * SHARE_JOIN (0x60, crater)
 *   str group (cap 256) · u32 topic_count (1..256) · topic_count × str topic (cap 249)
 *
 * SHARE_MEMBER (0xE0, crater)
 *   str member_id · u32 heartbeat_interval_ms · u32 session_timeout_ms · u32 record_lock_duration_ms
 *
 * A share group has no assignment: every member may be handed records of every partition of its topics, and the
 * acquisition locks keep what two members hold disjoint. The membership belongs to the connection that joined.
 */
import { DecodeError } from '../../errors.js';
import { Caps, Limits } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';

export interface ShareJoin {
  group: string;
  topics: string[];
}

export interface ShareMember {
  memberId: string;
  heartbeatIntervalMs: number;
  sessionTimeoutMs: number;
  recordLockDurationMs: number;
}

export const ShareJoinRequest = defineMessage<ShareJoin>({
  op: Op.SHARE_JOIN,
  name: 'SHARE_JOIN',
  encode(w, m) {
    w.str(m.group).u32(m.topics.length);
    for (const t of m.topics) w.str(t);
  },
  decode(r) {
    const group = r.str('group', Caps.group);
    const at = r.offset;
    const n = r.count('topic_count', 4, Limits.joinTopics);
    if (n === 0) throw new DecodeError('topic_count', at, 'a share group member needs at least one topic');
    const topics = new Array<string>(n);
    for (let i = 0; i < n; i++) topics[i] = r.str(`topics[${i}]`, Caps.topic);
    return { group, topics };
  },
});

export const ShareMemberReply = defineMessage<ShareMember>({
  op: Op.SHARE_MEMBER,
  name: 'SHARE_MEMBER',
  encode(w, m) {
    w.str(m.memberId).u32(m.heartbeatIntervalMs).u32(m.sessionTimeoutMs).u32(m.recordLockDurationMs);
  },
  decode(r) {
    return {
      memberId: r.str('member_id', Caps.memberId),
      heartbeatIntervalMs: r.u32('heartbeat_interval_ms'),
      sessionTimeoutMs: r.u32('session_timeout_ms'),
      recordLockDurationMs: r.u32('record_lock_duration_ms'),
    };
  },
});
