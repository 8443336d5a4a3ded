import { describe, expect, it } from 'vitest';
import { crc32, crc32Portable } from '../../../src/protocol/crc32.js';
import { fnv1a32, partitionForKey } from '../../../src/protocol/fnv1a.js';
import {
  ALLOCATOR_KEY,
  decodeMemoValue,
  decodeProducerStateKey,
  encodeIdentityKey,
  encodeIdentityValue,
  encodeMemoKey,
  encodeMemoValue,
  producerStatePartition,
} from '../../../src/storage/producer-state-codec.js';
import { decodeOffsetKey, encodeOffsetKey, offsetsPartition } from '../../../src/storage/offsets-codec.js';
import { decodeControlValue, encodeControlValue, encodeRecord, readRecord } from '../../../src/storage/record.js';
import { expectFrameVector, frameVectors, hex, loadFixture } from './fixtures.js';

describe('wire.md §16 frame vectors', () => {
  it.each(frameVectors('wire/frames.json'))('$name encodes to the spec bytes and decodes back', expectFrameVector);
});

describe('semantics.md §4 FNV-1a vectors', () => {
  const vectors = loadFixture<{
    vectors: { key: string; fnv1a32: string; partitionOf4?: number; partitionOf16: number }[];
  }>('golden/fnv1a.json').vectors;
  it.each(vectors)('key "$key"', (v) => {
    const key = Buffer.from(v.key);
    expect(fnv1a32(key).toString(16).padStart(8, '0')).toBe(v.fnv1a32);
    expect(partitionForKey(key, 16)).toBe(v.partitionOf16);
    if (v.partitionOf4 !== undefined) expect(partitionForKey(key, 4)).toBe(v.partitionOf4);
  });
});

describe('semantics.md §6 __producer_state worked bytes', () => {
  const g = loadFixture<{
    identity: {
      producerName: string;
      key: string;
      producerId: bigint;
      epoch: number;
      value: string;
      partition: number;
    };
    memoKey: { producerId: bigint; topic: string; key: string; partition: number };
    memoV2: { lastSeq: number; lastOffset: bigint; lastPartition: number; epoch: number; value: string };
    allocator: { key: string; partition: number };
  }>('golden/producer-state.json');

  it('identity key, value and partition', () => {
    const key = encodeIdentityKey(g.identity.producerName);
    expect(key).toEqual(hex(g.identity.key));
    expect(encodeIdentityValue({ producerId: g.identity.producerId, epoch: g.identity.epoch })).toEqual(
      hex(g.identity.value),
    );
    expect(producerStatePartition(key)).toBe(g.identity.partition);
  });

  it('memo key and partition', () => {
    const key = encodeMemoKey(g.memoKey.producerId, g.memoKey.topic);
    expect(key).toEqual(hex(g.memoKey.key));
    expect(producerStatePartition(key)).toBe(g.memoKey.partition);
    expect(decodeProducerStateKey(key)).toEqual({
      ok: true,
      value: { kind: 'memo', producerId: g.memoKey.producerId, topic: g.memoKey.topic },
    });
  });

  it('v2 memo value', () => {
    const { value, ...memo } = g.memoV2;
    expect(encodeMemoValue(memo)).toEqual(hex(value));
    expect(decodeMemoValue(hex(value))).toEqual({
      ok: true,
      value: { version: 2, ...memo, batch: undefined },
    });
  });

  it('allocator key and partition', () => {
    expect(ALLOCATOR_KEY).toEqual(hex(g.allocator.key));
    expect(producerStatePartition(ALLOCATOR_KEY)).toBe(g.allocator.partition);
  });
});

describe('semantics.md §7 __consumer_offsets worked key', () => {
  const g = loadFixture<{
    key: { group: string; topic: string; partition: number; hex: string };
    keyPartition: number;
  }>('golden/consumer-offsets.json');

  it('encodes, decodes and lands in partition 13', () => {
    const { hex: bytes, ...key } = g.key;
    expect(encodeOffsetKey(key)).toEqual(hex(bytes));
    expect(decodeOffsetKey(hex(bytes))).toEqual({ ok: true, value: key });
    expect(offsetsPartition(key.group)).toBe(g.keyPartition);
  });
});

describe('storage.md §8 CRC check values and worked records', () => {
  const g = loadFixture<{
    crc32: { text: string; crc: string }[];
    records: {
      name: string;
      attrs: number;
      timestamp: bigint;
      key: Buffer;
      value?: Buffer;
      producerId?: bigint;
      epoch?: number;
      control?: { marker: number; producerId: bigint; epoch: number };
      hex: string;
    }[];
  }>('golden/records.json');

  it.each(g.crc32)('crc32("$text") = $crc, native and portable', ({ text, crc }) => {
    expect(crc32(Buffer.from(text)).toString(16).padStart(8, '0')).toBe(crc);
    expect(crc32Portable(Buffer.from(text)).toString(16).padStart(8, '0')).toBe(crc);
  });

  it.each(g.records)('$name', (v) => {
    const value = v.control
      ? encodeControlValue(v.control.marker, v.control.producerId, v.control.epoch)
      : (v.value ?? Buffer.alloc(0));
    const bytes = encodeRecord({
      attrs: v.attrs,
      timestamp: v.timestamp,
      key: v.key,
      value,
      producerId: v.producerId,
      epoch: v.epoch,
    });
    expect(bytes.toString('hex')).toBe(hex(v.hex).toString('hex'));
    const read = readRecord(hex(v.hex), 0);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.record.attrs).toBe(v.attrs);
    expect(read.record.timestamp).toBe(v.timestamp);
    expect(read.record.key).toEqual(v.key);
    expect(read.record.value).toEqual(value);
    expect(read.record.producerId).toBe(v.producerId);
    if (v.control) expect(decodeControlValue(read.record.value)).toEqual(v.control);
  });
});
