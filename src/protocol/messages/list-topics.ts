/**
 * LIST_TOPICS (0x08)   empty
 * TOPIC_LIST (0x84)    u32 count · count × str name     sorted, internal `__*` hidden, at most 1024 (broker side)
 *
 * The decoder does not enforce the 1024 truncation (that is the sender's rule); the count is still checked against
 * the bytes left before anything is allocated.
 */
import { defineMessage, emptyMessage } from '../message.js';
import { Op } from '../opcodes.js';
import { inEntry } from './field-path.js';

export interface TopicList {
  topics: string[];
}

export const ListTopicsRequest = emptyMessage(Op.LIST_TOPICS, 'LIST_TOPICS');

export const TopicListReply = defineMessage<TopicList>({
  op: Op.TOPIC_LIST,
  name: 'TOPIC_LIST',
  encode(w, m) {
    w.u32(m.topics.length);
    for (const t of m.topics) w.str(t);
  },
  decode(r) {
    const n = r.count('count', 4);
    const topics = new Array<string>(n);
    let i = 0;
    try {
      for (; i < n; i++) topics[i] = r.str('name');
    } catch (err) {
      throw inEntry(err, `topics[${i}]`);
    }
    return { topics };
  },
});
