/**
 * CREATE_TOPIC (0x07)   str name (cap 249) · u32 num_partitions      1..1024 is the broker's check, not the decoder's
 * reply: OK (0x86)
 */
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';

export interface CreateTopic {
  name: string;
  numPartitions: number;
}

export const CreateTopicRequest = defineMessage<CreateTopic>({
  op: Op.CREATE_TOPIC,
  name: 'CREATE_TOPIC',
  encode(w, m) {
    w.str(m.name).u32(m.numPartitions);
  },
  decode(r) {
    return { name: r.str('name', Caps.topic), numPartitions: r.u32('num_partitions') };
  },
});
