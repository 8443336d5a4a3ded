/**
 * ALTER_TOPIC_CONFIG (0x1B)   str name (cap 249) · u32 k (≤ 64) · k × (str key (cap 64) · str value (cap 256))
 * reply: OK (0x86)
 *
 * Whether a key is known and its value valid (ERR 17) is the broker's check; the decoder only enforces the shape.
 */
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';
import { type ConfigEntry, readConfigEntries, writeConfigEntries } from './describe-topic.js';

export interface AlterTopicConfig {
  name: string;
  entries: ConfigEntry[];
}

export const AlterTopicConfigRequest = defineMessage<AlterTopicConfig>({
  op: Op.ALTER_TOPIC_CONFIG,
  name: 'ALTER_TOPIC_CONFIG',
  encode(w, m) {
    w.str(m.name);
    writeConfigEntries(w, m.entries);
  },
  decode(r) {
    return { name: r.str('name', Caps.topic), entries: readConfigEntries(r, 'entries') };
  },
});
