/**
 * COMMIT (0x06)   str topic (cap 249) · u32 partition · u64 offset     the offset is the next record to read
 * reply: OK (0x86)
 */
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';

export interface Commit {
  topic: string;
  partition: number;
  offset: bigint;
}

export const CommitRequest = defineMessage<Commit>({
  op: Op.COMMIT,
  name: 'COMMIT',
  encode(w, m) {
    w.str(m.topic).u32(m.partition).u64(m.offset);
  },
  decode(r) {
    return { topic: r.str('topic', Caps.topic), partition: r.u32('partition'), offset: r.u64('offset') };
  },
});
