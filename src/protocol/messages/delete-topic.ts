/**
 * DELETE_TOPIC (0x19)   str name (cap 249)
 * reply: OK (0x86)
 */
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';

export interface DeleteTopic {
  name: string;
}

export const DeleteTopicRequest = defineMessage<DeleteTopic>({
  op: Op.DELETE_TOPIC,
  name: 'DELETE_TOPIC',
  encode(w, m) {
    w.str(m.name);
  },
  decode(r) {
    return { name: r.str('name', Caps.topic) };
  },
});
