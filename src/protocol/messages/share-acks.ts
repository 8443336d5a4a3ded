/**
 * The two share-group layouts SHARE_FETCH, SHARE_ACK and their replies share (docs/extensions.md, share groups).
 *
 * ack block
 *   u32 n_partitions (≤ 1,024) · n × (
 *     str topic (cap 249) · u32 partition
 *     u32 n_ranges (≤ 1,024) · n × (u64 first_offset · u64 last_offset · u8 ack_type · u32 release_delay_ms
 *                                   · str reason (cap 1024)))
 *   ack_type: 1 ACCEPT · 2 RELEASE · 3 REJECT · 4 RENEW; any other byte is a DecodeError (ERR_BAD_FRAME).
 *   first_offset ≤ last_offset, both record starts; offsets in between that are not records (control records,
 *   aborted transactions) are gaps and ignored. release_delay_ms is read only with RELEASE; reason only with REJECT.
 *
 * ack results
 *   u32 n × (str topic · u32 partition · u16 error_code · u32 records)
 *   one entry per partition of the ack block, in its order: error_code 0 and the records changed, or an error code
 *   (INVALID_RECORD_STATE 60: a record of the ranges is not held by this member) and 0, nothing of it applied.
 */
import { DecodeError } from '../../errors.js';
import { Caps, Limits } from '../limits.js';
import { ShareAckType, type ShareAckTypeValue } from '../opcodes.js';
import type { Reader } from '../reader.js';
import type { Writer } from '../writer.js';
import { inEntry } from './field-path.js';

export interface ShareAckRange {
  firstOffset: bigint;
  lastOffset: bigint;
  type: ShareAckTypeValue;
  /** RELEASE only: how long the record stays unavailable (0 = at once). */
  releaseDelayMs: number;
  /** REJECT only: the last error, kept in the dead-letter copy. */
  reason: string;
}

export interface SharePartitionAcks {
  topic: string;
  partition: number;
  ranges: ShareAckRange[];
}

export interface ShareAckResult {
  topic: string;
  partition: number;
  errorCode: number;
  records: number;
}

const MAX_ACK_RANGES = 1_024;
/** u64 · u64 · u8 · u32 · u32 (empty reason). */
const MIN_RANGE_BYTES = 25;
const ackTypes = new Set<number>(Object.values(ShareAckType));

export function writeAckBlock(w: Writer, acks: readonly SharePartitionAcks[]): void {
  w.u32(acks.length);
  for (const p of acks) {
    w.str(p.topic).u32(p.partition).u32(p.ranges.length);
    for (const r of p.ranges) w.u64(r.firstOffset).u64(r.lastOffset).u8(r.type).u32(r.releaseDelayMs).str(r.reason);
  }
}

export function readAckBlock(r: Reader): SharePartitionAcks[] {
  const n = r.count('acks.count', 12, Limits.partitions);
  const out = new Array<SharePartitionAcks>(n);
  let i = 0;
  try {
    for (; i < n; i++) {
      const topic = r.str('topic', Caps.topic);
      const partition = r.u32('partition');
      const k = r.count('ranges.count', MIN_RANGE_BYTES, MAX_ACK_RANGES);
      const ranges = new Array<ShareAckRange>(k);
      let j = 0;
      try {
        for (; j < k; j++) ranges[j] = readRange(r);
      } catch (err) {
        throw inEntry(err, `ranges[${j}]`);
      }
      out[i] = { topic, partition, ranges };
    }
  } catch (err) {
    throw inEntry(err, `acks[${i}]`);
  }
  return out;
}

function readRange(r: Reader): ShareAckRange {
  const firstOffset = r.u64('first_offset');
  const lastOffset = r.u64('last_offset');
  const at = r.offset;
  const type = r.u8('ack_type');
  if (!ackTypes.has(type)) throw new DecodeError('ack_type', at, `unknown ack type ${type}`);
  const releaseDelayMs = r.u32('release_delay_ms');
  const reason = r.str('reason', Caps.nackReason);
  return { firstOffset, lastOffset, type: type as ShareAckTypeValue, releaseDelayMs, reason };
}

export function writeAckResults(w: Writer, results: readonly ShareAckResult[]): void {
  w.u32(results.length);
  for (const x of results) w.str(x.topic).u32(x.partition).u16(x.errorCode).u32(x.records);
}

export function readAckResults(r: Reader): ShareAckResult[] {
  const n = r.count('results.count', 14, Limits.partitions);
  const out = new Array<ShareAckResult>(n);
  let i = 0;
  try {
    for (; i < n; i++) {
      out[i] = {
        topic: r.str('topic', Caps.topic),
        partition: r.u32('partition'),
        errorCode: r.u16('error_code'),
        records: r.u32('records'),
      };
    }
  } catch (err) {
    throw inEntry(err, `results[${i}]`);
  }
  return out;
}
