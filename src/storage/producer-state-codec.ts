/**
 * `__producer_state` records (semantics.md §6), shared by the broker's replay and `crater state dump`.
 *
 * Keys open with a tag:
 *   0x01 · producer_name bytes                       identity
 *   0x02 · u64 pid · topic bytes (to the key's end)   sequence memo for (pid, topic)
 *   0x03 · "next_pid"                                 allocator watermark
 *
 * Values, big-endian:
 *   identity   u64 pid · u16 epoch                                        10 bytes
 *   memo v1    u32 last_seq · u64 last_offset · u32 last_partition        16 bytes, legacy, read only
 *   memo v2    v1 · u16 epoch                                             18 bytes, single-record produce
 *   memo v3    v2 · u32 base_seq · u32 count · count × (u32 partition · u64 offset)     batch produce
 *   window     v3 · crater window tail (producer-state-window.ts): the older batches of a windowed producer
 *   no ack     a v2 memo with last_partition 0 and last_offset 0: the request after last_seq did not land
 *   allocator  u64 next_pid                                               8 bytes
 *   tombstone  a zero-length value under the same key
 *
 * Partition = fnv1a32(full key, tag included) mod 16 + 1. Values are read as Lua's unpack reads them: trailing bytes
 * after the known fields are ignored, which is what lets a v2-only reader parse a v3 value. Decoders never throw on
 * bad bytes: they read with the strict protocol Reader and return the problem as data.
 */
import type { DecodeFailureKind } from '../errors.js';
import { fnv1a32 } from '../protocol/fnv1a.js';
import type { Reader } from '../protocol/reader.js';
import { decodeStrict, readerOver } from './strict-decode.js';
import {
  type IgnoredTail,
  type WindowTailBatch,
  readWindowTail,
  windowTailSize,
  writeWindowTail,
} from './producer-state-window.js';

export type { IgnoredTail };

export const PRODUCER_STATE_TOPIC = '__producer_state';
export const PRODUCER_STATE_PARTITIONS = 16;
/** The largest v3 batch memo a reader accepts; a count outside 1..1024 means the tail is not a v3 tail. */
export const MAX_MEMO_ACKS = 1_024;

export const ProducerStateTag = { IDENTITY: 0x01, MEMO: 0x02, ALLOCATOR: 0x03 } as const;

const ALLOCATOR_NAME = Buffer.from('next_pid', 'ascii');

export type ProducerStateKey =
  | { kind: 'identity'; producerName: string }
  | { kind: 'memo'; producerId: bigint; topic: string }
  | { kind: 'allocator' };

export interface ProducerIdentity {
  producerId: bigint;
  epoch: number;
}

export interface MemoAck {
  partition: number;
  offset: bigint;
}

export interface SequenceMemo {
  version: 1 | 2 | 3;
  lastSeq: number;
  lastOffset: bigint;
  lastPartition: number;
  /** Absent only in a v1 memo. */
  epoch: number | undefined;
  /** The acks of the memoized batch (v3 only), replayed for an exact duplicate. */
  batch: { baseSeq: number; acks: MemoAck[] } | undefined;
  /** The crater window tail after the v3 part: older batches, newest first. */
  window?: WindowTailBatch[] | undefined;
  /** Bytes after the v2 part not taken as a v3 tail (the memo then acts as v2), or after v3 as a window, and why. */
  ignoredTail?: IgnoredTail | undefined;
}

/** What the broker writes: always v2, or v3 when `batch` is given. */
export interface SequenceMemoToStore {
  lastSeq: number;
  lastOffset: bigint;
  lastPartition: number;
  epoch: number;
  batch?: { baseSeq: number; acks: readonly MemoAck[] } | undefined;
  /** Written only with `batch`. */
  window?: readonly WindowTailBatch[] | undefined;
}

/**
 * The partition of a "no ack" memo: a v2 memo naming partition 0 (partition ids are 1-based) and carrying no v3 tail
 * says that the request after last_seq did not land, so there is no ack to replay. The broker writes one at start
 * when a memo's records are missing (a process killed inside that request's writes); a last_seq of 0xFFFFFFFF in
 * it reads as −1, "nothing yet".
 */
export const NO_ACK_PARTITION = 0;

export function isNoAckMemo(memo: Pick<SequenceMemo, 'version' | 'lastPartition' | 'batch'>): boolean {
  return memo.version !== 1 && memo.lastPartition === NO_ACK_PARTITION && memo.batch === undefined;
}

/** One record of the topic; `value` undefined is a tombstone. */
export type ProducerStateEntry =
  | { kind: 'identity'; producerName: string; value: ProducerIdentity | undefined }
  | { kind: 'memo'; producerId: bigint; topic: string; value: SequenceMemo | undefined }
  | { kind: 'allocator'; value: bigint | undefined };

export type ProducerStateProblem = 'empty-key' | 'unknown-tag' | 'bad-key' | 'wrong-length';

export type ProducerStateFailure = { ok: false; problem: ProducerStateProblem; detail: string };
export type ProducerStateResult<T> = { ok: true; value: T } | ProducerStateFailure;

function fail(problem: ProducerStateProblem, detail: string): ProducerStateFailure {
  return { ok: false, problem, detail };
}

export function producerStatePartition(key: Uint8Array, partitions: number = PRODUCER_STATE_PARTITIONS): number {
  return (fnv1a32(key) % partitions) + 1;
}

export function encodeIdentityKey(producerName: string): Buffer {
  const name = Buffer.from(producerName, 'utf8');
  const key = Buffer.allocUnsafe(1 + name.length);
  key[0] = ProducerStateTag.IDENTITY;
  name.copy(key, 1);
  return key;
}

export function encodeMemoKey(producerId: bigint, topic: string): Buffer {
  const t = Buffer.from(topic, 'utf8');
  const key = Buffer.allocUnsafe(9 + t.length);
  key[0] = ProducerStateTag.MEMO;
  key.writeBigUInt64BE(producerId, 1);
  t.copy(key, 9);
  return key;
}

export const ALLOCATOR_KEY: Buffer = Buffer.concat([Buffer.from([ProducerStateTag.ALLOCATOR]), ALLOCATOR_NAME]);

export function encodeProducerStateKey(key: ProducerStateKey): Buffer {
  if (key.kind === 'identity') return encodeIdentityKey(key.producerName);
  if (key.kind === 'memo') return encodeMemoKey(key.producerId, key.topic);
  return Buffer.from(ALLOCATOR_KEY);
}

export function decodeProducerStateKey(key: Uint8Array): ProducerStateResult<ProducerStateKey> {
  if (key.length === 0) return fail('empty-key', 'a __producer_state key needs at least its tag byte');
  const r = readerOver(key);
  const tag = r.u8('tag');
  switch (tag) {
    case ProducerStateTag.IDENTITY:
      return { ok: true, value: { kind: 'identity', producerName: r.rest().toString('utf8') } };
    case ProducerStateTag.MEMO:
      if (r.remaining < 8) return fail('bad-key', `memo key of ${key.length} bytes cannot hold tag and pid (9)`);
      return { ok: true, value: { kind: 'memo', producerId: r.u64('pid'), topic: r.rest().toString('utf8') } };
    case ProducerStateTag.ALLOCATOR:
      if (!r.rest().equals(ALLOCATOR_NAME)) return fail('bad-key', 'allocator key is not 0x03 "next_pid"');
      return { ok: true, value: { kind: 'allocator' } };
    default:
      return fail('unknown-tag', `unknown key tag 0x${tag.toString(16).padStart(2, '0')}`);
  }
}

/** Every value's fields are fixed-width and its length is checked first: a Reader failure can only be a short value. */
const problems = {
  short: 'wrong-length',
  'string-past-end': 'wrong-length',
  'string-too-long': 'wrong-length',
  'count-past-end': 'wrong-length',
  'count-over-limit': 'wrong-length',
  'trailing-bytes': 'wrong-length',
  invalid: 'wrong-length',
} as const satisfies Record<DecodeFailureKind, ProducerStateProblem>;

export function encodeIdentityValue(identity: ProducerIdentity): Buffer {
  const v = Buffer.allocUnsafe(10);
  v.writeBigUInt64BE(identity.producerId, 0);
  v.writeUInt16BE(identity.epoch, 8);
  return v;
}

export function decodeIdentityValue(value: Uint8Array): ProducerStateResult<ProducerIdentity> {
  if (value.length < 10) return fail('wrong-length', `identity value of ${value.length} bytes, needs 10`);
  return decodeStrict(value, problems, (r) => ({ producerId: r.u64('pid'), epoch: r.u16('epoch') }));
}

export function encodeMemoValue(memo: SequenceMemoToStore): Buffer {
  const acks = memo.batch?.acks;
  const v3 = 18 + (acks ? 8 + acks.length * 12 : 0);
  const window = acks ? memo.window : undefined;
  const v = Buffer.allocUnsafe(v3 + windowTailSize(window));
  v.writeUInt32BE(memo.lastSeq, 0);
  v.writeBigUInt64BE(memo.lastOffset, 4);
  v.writeUInt32BE(memo.lastPartition, 12);
  v.writeUInt16BE(memo.epoch, 16);
  if (memo.batch && acks) {
    v.writeUInt32BE(memo.batch.baseSeq, 18);
    v.writeUInt32BE(acks.length, 22);
    let p = 26;
    for (const ack of acks) {
      v.writeUInt32BE(ack.partition, p);
      v.writeBigUInt64BE(ack.offset, p + 4);
      p += 12;
    }
    if (window && window.length > 0) writeWindowTail(v, v3, window);
  }
  return v;
}

/** v2 when at least 18 bytes, else v1 when at least 16; a v3 tail only when it is whole and its count in range. */
export function decodeMemoValue(value: Uint8Array): ProducerStateResult<SequenceMemo> {
  if (value.length < 16) return fail('wrong-length', `memo value of ${value.length} bytes, needs 16 (v1) or 18 (v2)`);
  return decodeStrict(value, problems, readMemo);
}

function readMemo(r: Reader): SequenceMemo {
  const lastSeq = r.u32('last_seq');
  const lastOffset = r.u64('last_offset');
  const lastPartition = r.u32('last_partition');
  if (r.remaining < 2) return { version: 1, lastSeq, lastOffset, lastPartition, epoch: undefined, batch: undefined };
  const memo: SequenceMemo = {
    version: 2,
    lastSeq,
    lastOffset,
    lastPartition,
    epoch: r.u16('epoch'),
    batch: undefined,
  };
  const tail = r.remaining;
  if (tail === 0) return memo;
  const ignore = (problem: string): SequenceMemo => ({
    ...memo,
    ignoredTail: { part: 'v3', at: 18, bytes: tail, problem },
  });
  if (tail < 8) return ignore(`expected at least 20 bytes (u32 base_seq, u32 ack count, 12 per ack), found ${tail}`);
  const baseSeq = r.u32('base_seq');
  const count = r.u32('ack count');
  if (count < 1 || count > MAX_MEMO_ACKS)
    return ignore(`ack count ${count} at value byte 22, expected 1..${MAX_MEMO_ACKS}`);
  if (r.remaining < count * 12) {
    return ignore(
      `ack count ${count} at value byte 22 needs ${count * 12} bytes of acks from value byte 26, found ${r.remaining}`,
    );
  }
  const acks = new Array<MemoAck>(count);
  for (let i = 0; i < count; i++) acks[i] = { partition: r.u32('ack partition'), offset: r.u64('ack offset') };
  memo.version = 3;
  memo.batch = { baseSeq, acks };
  if (r.remaining > 0) {
    const { window, ignored } = readWindowTail(r, 26 + count * 12);
    memo.window = window;
    memo.ignoredTail = ignored;
  }
  return memo;
}

export function encodeAllocatorValue(nextPid: bigint): Buffer {
  const v = Buffer.allocUnsafe(8);
  v.writeBigUInt64BE(nextPid, 0);
  return v;
}

export function decodeAllocatorValue(value: Uint8Array): ProducerStateResult<bigint> {
  if (value.length < 8) return fail('wrong-length', `allocator value of ${value.length} bytes, needs 8`);
  return decodeStrict(value, problems, (r) => r.u64('next_pid'));
}

/** Decodes one record of the topic (key and value); a zero-length value is a tombstone. */
export function decodeProducerStateRecord(key: Uint8Array, value: Uint8Array): ProducerStateResult<ProducerStateEntry> {
  const k = decodeProducerStateKey(key);
  if (!k.ok) return k;
  const tombstone = value.length === 0;
  switch (k.value.kind) {
    case 'identity': {
      if (tombstone) return { ok: true, value: { ...k.value, value: undefined } };
      const v = decodeIdentityValue(value);
      return v.ok ? { ok: true, value: { ...k.value, value: v.value } } : v;
    }
    case 'memo': {
      if (tombstone) return { ok: true, value: { ...k.value, value: undefined } };
      const v = decodeMemoValue(value);
      return v.ok ? { ok: true, value: { ...k.value, value: v.value } } : v;
    }
    case 'allocator': {
      if (tombstone) return { ok: true, value: { kind: 'allocator', value: undefined } };
      const v = decodeAllocatorValue(value);
      return v.ok ? { ok: true, value: { kind: 'allocator', value: v.value } } : v;
    }
  }
}
