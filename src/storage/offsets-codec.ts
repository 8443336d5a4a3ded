/**
 * `__consumer_offsets` records (semantics.md §7), shared by the broker's replay and `crater state dump`.
 *
 *   key     u16 group length · group · u16 topic length · topic · u32 partition (1-based)     Lua `>s2s2I4`
 *   value   u64 offset (the next record to read)                                              Lua `>I8`
 *   tombstone   a zero-length value (DELETE_GROUP, DELETE_TOPIC)
 *
 * Partition = fnv1a32(group id bytes only) mod 16 + 1, so every commit of a group lands in one partition. Decoders
 * never throw on bad bytes: they return the problem as data. As with Lua's unpack, bytes after a value's u64 are
 * ignored; a key must be exactly its fields.
 */
import { fnv1a32 } from '../protocol/fnv1a.js';

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

export function decodeOffsetKey(key: Uint8Array): OffsetsResult<OffsetKey> {
  const b = Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  let p = 0;
  const strings: string[] = [];
  for (const field of ['group', 'topic']) {
    if (b.length - p < 2) return { ok: false, problem: 'wrong-length', detail: `key ends before the ${field} length` };
    const len = b.readUInt16BE(p);
    p += 2;
    if (b.length - p < len) {
      return { ok: false, problem: 'string-past-end', detail: `${field} length ${len} runs past the key's end` };
    }
    strings.push(b.toString('utf8', p, p + len));
    p += len;
  }
  if (b.length - p < 4) return { ok: false, problem: 'wrong-length', detail: 'key ends before the partition' };
  const partition = b.readUInt32BE(p);
  p += 4;
  if (p !== b.length) {
    return { ok: false, problem: 'trailing-bytes', detail: `${b.length - p} bytes after the partition` };
  }
  return { ok: true, value: { group: strings[0]!, topic: strings[1]!, partition } };
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
  return { ok: true, value: Buffer.from(value.buffer, value.byteOffset, value.byteLength).readBigUInt64BE(0) };
}
