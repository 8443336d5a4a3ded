/**
 * LIST_OFFSETS (0x18)
 *   str topic (cap 249) · [u8 mode: 0 bounds, 1 timestamp] · [u64 timestamp_ms, required when mode = 1]
 *
 * OFFSETS (0x8D)
 *   u32 n (1..1024) · n × (u32 partition · u64 earliest · u64 latest · u64 high_watermark · u64 lso · u8 flags)
 *                                                        37 bytes per entry, partitions in order 1..N
 *   [u32 m · m × (u32 partition · u64 offset · u8 found_flag)]   13 bytes per entry; only in timestamp mode
 *
 * An old broker stops after the n entries, so the for_times section is read only when at least 4 bytes remain
 * (wire.md §13.2). A mode other than 0 or 1, or mode 1 without its timestamp, is a DecodeError (the broker answers
 * ERR 1). With mode 0 any following bytes are ignored, as MoonMQ does.
 */
import { DecodeError } from '../../errors.js';
import { Caps, Limits } from '../limits.js';
import { defineMessage } from '../message.js';
import { ListOffsetsMode, Op } from '../opcodes.js';
import { inEntry } from './field-path.js';

export interface ListOffsets {
  topic: string;
  mode?: number | undefined;
  timestampMs?: bigint | undefined;
}

export interface PartitionOffsets {
  partition: number;
  earliest: bigint;
  latest: bigint;
  highWatermark: bigint;
  lso: bigint;
  /** OFFSETS_FLAG_HWM_EXACT · LSO_KNOWN · LOCAL */
  flags: number;
}

export interface OffsetForTime {
  partition: number;
  offset: bigint;
  /** FOR_TIMES_FLAG_FOUND; clear means no record is that recent and `offset` equals `latest`. */
  flags: number;
}

export interface Offsets {
  partitions: PartitionOffsets[];
  forTimes?: OffsetForTime[] | undefined;
}

const PARTITION_ENTRY_BYTES = 37;
const FOR_TIME_ENTRY_BYTES = 13;

export const ListOffsetsRequest = defineMessage<ListOffsets>({
  op: Op.LIST_OFFSETS,
  name: 'LIST_OFFSETS',
  encode(w, m) {
    w.str(m.topic);
    if (m.mode !== undefined || m.timestampMs !== undefined) w.u8(m.mode ?? ListOffsetsMode.TIMESTAMP);
    if (m.timestampMs !== undefined) w.u64(m.timestampMs);
  },
  decode(r) {
    const topic = r.str('topic', Caps.topic);
    const modeAt = r.offset;
    const mode = r.optionalU8('mode');
    if (mode === undefined || mode === ListOffsetsMode.BOUNDS) return { topic, mode, timestampMs: undefined };
    if (mode !== ListOffsetsMode.TIMESTAMP) throw new DecodeError('mode', modeAt, `unknown mode ${mode}`);
    return { topic, mode, timestampMs: r.u64('timestamp_ms') };
  },
});

export const OffsetsReply = defineMessage<Offsets>({
  op: Op.OFFSETS,
  name: 'OFFSETS',
  encode(w, m) {
    const forTimes = m.forTimes;
    w.reserve(8 + m.partitions.length * PARTITION_ENTRY_BYTES + (forTimes?.length ?? 0) * FOR_TIME_ENTRY_BYTES);
    w.u32(m.partitions.length);
    for (const p of m.partitions) {
      w.u32(p.partition).u64(p.earliest).u64(p.latest).u64(p.highWatermark).u64(p.lso).u8(p.flags);
    }
    if (forTimes !== undefined) {
      w.u32(forTimes.length);
      for (const t of forTimes) w.u32(t.partition).u64(t.offset).u8(t.flags);
    }
  },
  decode(r) {
    const countAt = r.offset;
    const n = r.count('n', PARTITION_ENTRY_BYTES, Limits.partitions);
    if (n === 0) throw new DecodeError('n', countAt, 'a topic has at least 1 partition');
    const partitions = new Array<PartitionOffsets>(n);
    let i = 0;
    try {
      for (; i < n; i++) {
        partitions[i] = {
          partition: r.u32('partition'),
          earliest: r.u64('earliest'),
          latest: r.u64('latest'),
          highWatermark: r.u64('high_watermark'),
          lso: r.u64('lso'),
          flags: r.u8('flags'),
        };
      }
    } catch (err) {
      throw inEntry(err, `partitions[${i}]`);
    }
    if (r.remaining < 4) return { partitions, forTimes: undefined };
    const m = r.count('m', FOR_TIME_ENTRY_BYTES, Limits.partitions);
    const forTimes = new Array<OffsetForTime>(m);
    try {
      for (i = 0; i < m; i++) {
        forTimes[i] = { partition: r.u32('partition'), offset: r.u64('offset'), flags: r.u8('found_flag') };
      }
    } catch (err) {
      throw inEntry(err, `forTimes[${i}]`);
    }
    return { partitions, forTimes };
  },
});
