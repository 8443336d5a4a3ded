import { describe, expect, it } from 'vitest';
import { CodecError, compressValue, decompressValue, snappyDeclaredLength } from '../../../src/protocol/compression.js';
import { Codec } from '../../../src/protocol/opcodes.js';

const value = Buffer.from('the quick brown fox '.repeat(50));

describe('value compression (storage.md §9)', () => {
  it('gzip output is an RFC 1952 member (1f 8b) and round-trips', () => {
    const gz = compressValue(Codec.GZIP, value);
    expect(gz.subarray(0, 2).toString('hex')).toBe('1f8b');
    expect(gz.length).toBeLessThan(value.length);
    expect(decompressValue(Codec.GZIP, gz)).toEqual(value);
  });

  it('snappy output is a raw block starting with the varint length, and round-trips', () => {
    const sn = compressValue(Codec.SNAPPY, value);
    expect(snappyDeclaredLength(sn)).toBe(value.length);
    expect(sn.subarray(0, 6).toString('latin1')).not.toBe('sNaPpY');
    expect(decompressValue(Codec.SNAPPY, sn)).toEqual(value);
  });

  it('codec none passes the bytes through', () => {
    expect(decompressValue(Codec.NONE, compressValue(Codec.NONE, value))).toEqual(value);
  });

  it('a snappy block declaring more than 256 MiB is refused from its header alone', () => {
    // varint 0x10000001 (256 MiB + 1) then one garbage byte: nothing near the declared size may be allocated.
    const block = Buffer.from([0x81, 0x80, 0x80, 0x80, 0x01, 0x00]);
    expect(snappyDeclaredLength(block)).toBe(256 * 1_048_576 + 1);
    expect(() => decompressValue(Codec.SNAPPY, block)).toThrow(/256 MiB/);
  });

  it('garbage under gzip or snappy is a CodecError; zlib-wrapped deflate is not gzip', () => {
    expect(() => decompressValue(Codec.GZIP, Buffer.from('not gzip at all'))).toThrow(CodecError);
    expect(() => decompressValue(Codec.GZIP, Buffer.from('789c4b040000620062', 'hex'))).toThrow(CodecError);
    expect(() => decompressValue(Codec.SNAPPY, Buffer.from([0x05, 0xff, 0xff]))).toThrow(CodecError);
  });

  it('an unknown codec id is a CodecError naming it', () => {
    expect(() => compressValue(3, value)).toThrow(CodecError);
    expect(() => decompressValue(7, value)).toThrow(/codec 7/);
  });
});
