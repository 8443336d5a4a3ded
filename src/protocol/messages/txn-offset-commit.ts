/**
 * TXN_OFFSET_COMMIT (0x15)
 *   str group (cap 256) · u32 count (≤ 1024) · count × (str topic (cap 249) · u32 partition · u64 offset)
 * reply: OK (0x86)
 *
 * The offsets are buffered in the transaction and reach __consumer_offsets only when it commits.
 */
import { Caps, Limits } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';
import type { CommittedOffset } from './describe-group.js';
import { inEntry } from './field-path.js';

export interface TxnOffsetCommit {
  group: string;
  offsets: CommittedOffset[];
}

export const TxnOffsetCommitRequest = defineMessage<TxnOffsetCommit>({
  op: Op.TXN_OFFSET_COMMIT,
  name: 'TXN_OFFSET_COMMIT',
  encode(w, m) {
    w.str(m.group).u32(m.offsets.length);
    for (const o of m.offsets) w.str(o.topic).u32(o.partition).u64(o.offset);
  },
  decode(r) {
    const group = r.str('group', Caps.group);
    const n = r.count('count', 16, Limits.txnOffsetEntries);
    const offsets = new Array<CommittedOffset>(n);
    let i = 0;
    try {
      for (; i < n; i++) {
        offsets[i] = { topic: r.str('topic', Caps.topic), partition: r.u32('partition'), offset: r.u64('offset') };
      }
    } catch (err) {
      throw inEntry(err, `offsets[${i}]`);
    }
    return { group, offsets };
  },
});
