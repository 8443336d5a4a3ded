/**
 * CREATE_PARTITIONS (0x21)   str name (cap 249) · u32 new_total   (≤ current or > 1024: ERR 21, the broker's check)
 * reply: OK (0x86)
 */
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';

export interface CreatePartitions {
  name: string;
  newTotal: number;
}

export const CreatePartitionsRequest = defineMessage<CreatePartitions>({
  op: Op.CREATE_PARTITIONS,
  name: 'CREATE_PARTITIONS',
  encode(w, m) {
    w.str(m.name).u32(m.newTotal);
  },
  decode(r) {
    return { name: r.str('name', Caps.topic), newTotal: r.u32('new_total') };
  },
});
