/**
 * `__consumer_offsets` records (semantics.md §7), shared by the broker's replay and `crater state dump`.
 *
 *   key     u16 group length · group · u16 topic length · topic · u32 partition (1-based)     Lua `>s2s2I4`
 *   value   u64 offset (the next record to read)                                              Lua `>I8`
 *   tombstone   a zero-length value (DELETE_GROUP, DELETE_TOPIC)
 *
 * Partition = fnv1a32(group id bytes only) mod 16 + 1, so every commit of a group lands in one partition. Decoders
 * never throw on bad bytes: they read with the strict protocol Reader and return the problem as data. As with Lua's unpack, bytes after a value's u64 are
 * ignored; a key must be exactly its fields.
 */
import type { DecodeFailureKind } from '../errors.js';
import { fnv1a32 } from '../protocol/fnv1a.js';
import { decodeStrict } from './strict-decode.js';

export const CONSUMER_OFFSETS_TOPIC = '__consumer_offsets';
export const CONSUMER_OFFSETS_PARTITIONS = 16;

export interface OffsetKey {
  group: string;
  topic: string;
  partition: number;
}

export type OffsetsProblem = 'wrong-length' | 'string-past-end' | 'trailing-bytes';
export type OffsetsFailure = { ok: false; problem: OffsetsProblem; detail: string };
export type OffsetsResult<T> = { ok: true; value: T } | OffsetsFailure;

export function offsetsPartition(group: string | Uint8Array, partitions: number = CONSUMER_OFFSETS_PARTITIONS): number {
  return (fnv1a32(typeof group === 'string' ? Buffer.from(group, 'utf8') : group) % partitions) + 1;
}

export function encodeOffsetKey(key: OffsetKey): Buffer {
  const group = Buffer.from(key.group, 'utf8');
  const topic = Buffer.from(key.topic, 'utf8');
  if (group.length > 0xffff || topic.length > 0xffff) throw new RangeError('group and topic must fit a u16 length');
  const b = Buffer.allocUnsafe(2 + group.length + 2 + topic.length + 4);
  let p = b.writeUInt16BE(group.length, 0);
  p += group.copy(b, p);
  p = b.writeUInt16BE(topic.length, p);
  p += topic.copy(b, p);
  b.writeUInt32BE(key.partition, p);
  return b;
}

const problems = {
  short: 'wrong-length',
  'string-past-end': 'string-past-end',
  'string-too-long': 'string-past-end',
  'count-past-end': 'wrong-length',
  'count-over-limit': 'wrong-length',
  'trailing-bytes': 'trailing-bytes',
  invalid: 'wrong-length',
} as const satisfies Record<DecodeFailureKind, OffsetsProblem>;

export function decodeOffsetKey(key: Uint8Array): OffsetsResult<OffsetKey> {
  return decodeStrict(key, problems, (r) => {
    const value = { group: r.str16('group'), topic: r.str16('topic'), partition: r.u32('partition') };
    r.expectEnd('key');
    return value;
  });
}

export function encodeOffsetValue(offset: bigint): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeBigUInt64BE(offset, 0);
  return b;
}

/** undefined for a tombstone (zero-length value). */
export function decodeOffsetValue(value: Uint8Array): OffsetsResult<bigint | undefined> {
  if (value.length === 0) return { ok: true, value: undefined };
  if (value.length < 8) {
    return { ok: false, problem: 'wrong-length', detail: `offset value of ${value.length} bytes, needs 8` };
  }
  return decodeStrict(value, problems, (r) => r.u64('offset'));
}
