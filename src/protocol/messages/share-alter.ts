/**
 * SHARE_ALTER (0x66, crater)
 *   str group (cap 256) · u32 n (1..64) × (str key (cap 64) · str value (cap 256))
 * reply: OK (0x86)
 *
 * Sets group configuration (record.lock.duration.ms, delivery.count.limit, partition.max.record.locks,
 * auto.offset.reset, isolation.level, dlq.enabled); creates the group when it does not exist. An unknown key or a
 * bad value is ERR_INVALID_CONFIG and changes nothing. New values apply to records acquired from then on.
 */
import { DecodeError } from '../../errors.js';
import { Caps, Limits } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';

export interface ShareAlter {
  group: string;
  entries: Array<{ key: string; value: string }>;
}

export const ShareAlterRequest = defineMessage<ShareAlter>({
  op: Op.SHARE_ALTER,
  name: 'SHARE_ALTER',
  encode(w, m) {
    w.str(m.group).u32(m.entries.length);
    for (const e of m.entries) w.str(e.key).str(e.value);
  },
  decode(r) {
    const group = r.str('group', Caps.group);
    const at = r.offset;
    const n = r.count('entries.count', 8, Limits.configEntries);
    if (n === 0) throw new DecodeError('entries.count', at, 'SHARE_ALTER needs at least one entry');
    const entries = new Array<{ key: string; value: string }>(n);
    for (let i = 0; i < n; i++)
      entries[i] = {
        key: r.str(`entries[${i}].key`, Caps.configKey),
        value: r.str(`entries[${i}].value`, Caps.configValue),
      };
    return { group, entries };
  },
});
