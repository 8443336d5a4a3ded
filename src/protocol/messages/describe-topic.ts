/**
 * DESCRIBE_TOPIC (0x1A)      str name (cap 249)
 * TOPIC_DESCRIPTION (0x8E)   str name · u32 partition_count · u32 k · k × (str key (cap 64) · str value (cap 256))
 *
 * Keys arrive sorted and values are always strings; only keys set in the topic's sidecar appear. The entries keep
 * their wire order as a list, so encode(decode(bytes)) reproduces the bytes.
 */
import { Caps, Limits } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';
import { inEntry } from './field-path.js';

export interface ConfigEntry {
  key: string;
  value: string;
}

export interface DescribeTopic {
  name: string;
}

export interface TopicDescription {
  name: string;
  partitionCount: number;
  config: ConfigEntry[];
}

/** u32 k · k × (str key (cap 64) · str value (cap 256)); shared with ALTER_TOPIC_CONFIG. */
export function readConfigEntries(r: Reader, field: string, max: number = Limits.configEntries): ConfigEntry[] {
  const n = r.count(`${field}.count`, 8, max);
  const entries = new Array<ConfigEntry>(n);
  let i = 0;
  try {
    for (; i < n; i++) entries[i] = { key: r.str('key', Caps.configKey), value: r.str('value', Caps.configValue) };
  } catch (err) {
    throw inEntry(err, `${field}[${i}]`);
  }
  return entries;
}

export function writeConfigEntries(w: Writer, entries: readonly ConfigEntry[]): void {
  w.u32(entries.length);
  for (const e of entries) w.str(e.key).str(e.value);
}

export const DescribeTopicRequest = defineMessage<DescribeTopic>({
  op: Op.DESCRIBE_TOPIC,
  name: 'DESCRIBE_TOPIC',
  encode(w, m) {
    w.str(m.name);
  },
  decode(r) {
    return { name: r.str('name', Caps.topic) };
  },
});

export const TopicDescriptionReply = defineMessage<TopicDescription>({
  op: Op.TOPIC_DESCRIPTION,
  name: 'TOPIC_DESCRIPTION',
  encode(w, m) {
    w.str(m.name).u32(m.partitionCount);
    writeConfigEntries(w, m.config);
  },
  decode(r) {
    return { name: r.str('name'), partitionCount: r.u32('partition_count'), config: readConfigEntries(r, 'config') };
  },
});
