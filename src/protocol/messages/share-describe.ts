/**
 * SHARE_DESCRIBE (0x65, crater)   str group (cap 256)
 *
 * SHARE_DESCRIPTION (0xE3, crater)
 *   str group · u8 state (0 empty: no members · 1 stable)
 *   u32 n_config × (str key · str value)                       the group's effective configuration
 *   u32 n_members × (str member_id · str address · u32 acquired · u64 last_seen_ms)
 *   u32 n_partitions × (str topic · u32 partition · u64 spso · u64 speo · u64 end_offset
 *                       · u32 available · u32 acquired · u32 acknowledged · u32 archived
 *                       · u64 oldest_lock_age_ms (0 with nothing acquired)
 *                       · u32 n_hist × (u16 delivery_count · u32 records))   in-flight records by delivery count
 *
 * end_offset is the LEO, or the LSO for a read_committed group; lag = end_offset − spso (offset units). An unknown
 * group is ERR_GROUP_MISSING.
 */
import { Caps, Limits } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';
import { inEntry } from './field-path.js';

export interface ShareGroupRef {
  group: string;
}

export interface ShareMemberInfo {
  memberId: string;
  address: string;
  acquired: number;
  lastSeenMs: bigint;
}

export interface SharePartitionInfo {
  topic: string;
  partition: number;
  spso: bigint;
  speo: bigint;
  endOffset: bigint;
  available: number;
  acquired: number;
  acknowledged: number;
  archived: number;
  oldestLockAgeMs: bigint;
  deliveryCounts: Array<{ deliveryCount: number; records: number }>;
}

export interface ShareGroupDescription {
  group: string;
  state: number;
  config: Array<{ key: string; value: string }>;
  members: ShareMemberInfo[];
  partitions: SharePartitionInfo[];
}

export const ShareGroupState = { EMPTY: 0, STABLE: 1 } as const;

const MAX_PARTITIONS = 65_536;

export const ShareDescribeRequest = defineMessage<ShareGroupRef>({
  op: Op.SHARE_DESCRIBE,
  name: 'SHARE_DESCRIBE',
  encode(w, m) {
    w.str(m.group);
  },
  decode(r) {
    return { group: r.str('group', Caps.group) };
  },
});

function writePartition(w: Writer, p: SharePartitionInfo): void {
  w.str(p.topic).u32(p.partition).u64(p.spso).u64(p.speo).u64(p.endOffset);
  w.u32(p.available).u32(p.acquired).u32(p.acknowledged).u32(p.archived).u64(p.oldestLockAgeMs);
  w.u32(p.deliveryCounts.length);
  for (const h of p.deliveryCounts) w.u16(h.deliveryCount).u32(h.records);
}

function readPartition(r: Reader): SharePartitionInfo {
  const head = {
    topic: r.str('topic', Caps.topic),
    partition: r.u32('partition'),
    spso: r.u64('spso'),
    speo: r.u64('speo'),
    endOffset: r.u64('end_offset'),
    available: r.u32('available'),
    acquired: r.u32('acquired'),
    acknowledged: r.u32('acknowledged'),
    archived: r.u32('archived'),
    oldestLockAgeMs: r.u64('oldest_lock_age_ms'),
  };
  const n = r.count('hist.count', 6, 0xffff);
  const deliveryCounts = new Array<{ deliveryCount: number; records: number }>(n);
  for (let i = 0; i < n; i++) deliveryCounts[i] = { deliveryCount: r.u16('delivery_count'), records: r.u32('records') };
  return { ...head, deliveryCounts };
}

export const ShareDescriptionReply = defineMessage<ShareGroupDescription>({
  op: Op.SHARE_DESCRIPTION,
  name: 'SHARE_DESCRIPTION',
  encode(w, m) {
    w.str(m.group).u8(m.state).u32(m.config.length);
    for (const c of m.config) w.str(c.key).str(c.value);
    w.u32(m.members.length);
    for (const x of m.members) w.str(x.memberId).str(x.address).u32(x.acquired).u64(x.lastSeenMs);
    w.u32(m.partitions.length);
    for (const p of m.partitions) writePartition(w, p);
  },
  decode(r) {
    const group = r.str('group', Caps.group);
    const state = r.u8('state');
    const nc = r.count('config.count', 8, Limits.configEntries);
    const config = new Array<{ key: string; value: string }>(nc);
    for (let i = 0; i < nc; i++)
      config[i] = {
        key: r.str(`config[${i}].key`, Caps.configKey),
        value: r.str(`config[${i}].value`, Caps.configValue),
      };
    const nm = r.count('members.count', 24);
    const members = new Array<ShareMemberInfo>(nm);
    for (let i = 0; i < nm; i++) {
      members[i] = {
        memberId: r.str(`members[${i}].member_id`, Caps.memberId),
        address: r.str(`members[${i}].address`),
        acquired: r.u32(`members[${i}].acquired`),
        lastSeenMs: r.u64(`members[${i}].last_seen_ms`),
      };
    }
    const np = r.count('partitions.count', 60, MAX_PARTITIONS);
    const partitions = new Array<SharePartitionInfo>(np);
    let i = 0;
    try {
      for (; i < np; i++) partitions[i] = readPartition(r);
    } catch (err) {
      throw inEntry(err, `partitions[${i}]`);
    }
    return { group, state, config, members, partitions };
  },
});
