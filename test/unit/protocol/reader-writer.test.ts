import { describe, expect, it } from 'vitest';
import { DecodeError, EncodeError, UsageError } from '../../../src/errors.js';
import { Reader } from '../../../src/protocol/reader.js';
import { Writer } from '../../../src/protocol/writer.js';
import { expectDecodeError } from './fixtures.js';

describe('Writer and Reader', () => {
  it('round-trips every integer width big-endian, u64 as bigint beyond 2^53', () => {
    const w = new Writer(1);
    w.u8(0xab)
      .u16(0xbeef)
      .u32(0xdeadbeef)
      .u64(2n ** 63n + 5n)
      .u64(0n);
    const bytes = w.finish();
    expect(bytes.subarray(0, 7).toString('hex')).toBe('abbeefdeadbeef');
    const r = new Reader(bytes);
    const read = [r.u8('a'), r.u16('b'), r.u32('c'), r.u64('d'), r.u64('e')];
    expect(read).toEqual([0xab, 0xbeef, 0xdeadbeef, 2n ** 63n + 5n, 0n]);
    expect(r.hasMore()).toBe(false);
  });

  it('writes strings as UTF-8 with a u32 byte length, and reads them back', () => {
    const w = new Writer(2);
    w.str('héllo ✓').str(Buffer.from([0, 1, 2]));
    const bytes = w.finish();
    expect(bytes.readUInt32BE(0)).toBe(Buffer.byteLength('héllo ✓'));
    const r = new Reader(bytes);
    expect(r.str('s')).toBe('héllo ✓');
    expect(r.strBytes('b')).toEqual(Buffer.from([0, 1, 2]));
  });

  it('reserve sizes the buffer once; the frame is unchanged', () => {
    const w = new Writer(4).reserve(1000);
    for (let i = 0; i < 250; i++) w.u32(i);
    expect(w.length).toBe(1000);
    expect(w.finish().readUInt32BE(996)).toBe(249);
  });

  it('names the field and offset when a read runs past the end', () => {
    const r = new Reader(Buffer.from([0, 0, 0, 1, 9]));
    r.u32('first');
    const e = expectDecodeError(() => r.u32('second'));
    expect(e.field).toBe('second');
    expect(e.offset).toBe(4);
    expect(r.u8('third')).toBe(9);
  });

  it('refuses a string whose length runs past the end, before slicing anything', () => {
    const e = expectDecodeError(() => new Reader(Buffer.from([0, 0, 0, 9, 1, 2])).str('topic'));
    expect(e.field).toBe('topic');
    expect(e.offset).toBe(0);
    expect(e.message).toMatch(/runs past the end/);
  });

  it('refuses a string over its cap even when the bytes are present', () => {
    const w = new Writer().str('x'.repeat(250));
    const e = expectDecodeError(() => new Reader(w.finish()).str('topic', 249));
    expect(e.message).toMatch(/too long: 250 bytes, cap 249/);
  });

  it('refuses a count the remaining bytes could not hold, and one over its limit', () => {
    const bytes = Buffer.alloc(4 + 16);
    bytes.writeUInt32BE(3, 0);
    expect(expectDecodeError(() => new Reader(bytes).count('n', 8)).message).toMatch(/cannot fit/);
    expect(new Reader(bytes).count('n', 4)).toBe(3);
    expect(expectDecodeError(() => new Reader(bytes).count('n', 1, 2)).message).toMatch(/exceeds the limit/);
  });

  it('reports offsets relative to the reader base', () => {
    const buf = Buffer.from([9, 9, 9, 0, 1]);
    const r = new Reader(buf, 3);
    r.u16('x');
    expect(expectDecodeError(() => r.u8('y')).offset).toBe(2);
  });

  it('optionalU8 is undefined at the end; expectEnd flags trailing bytes', () => {
    const r = new Reader(Buffer.from([1, 2]));
    expect(r.optionalU8('a')).toBe(1);
    expect(() => r.expectEnd('tail')).toThrow(DecodeError);
    r.u8('b');
    expect(r.optionalU8('c')).toBeUndefined();
  });
});

/** The EncodeError that `write` throws; fails the test when it writes instead. */
function refused(write: (w: Writer) => unknown): EncodeError {
  const w = new Writer(16);
  try {
    write(w);
  } catch (err) {
    expect(err).toBeInstanceOf(EncodeError);
    expect(w.length).toBe(0);
    return err as EncodeError;
  }
  throw new Error(`wrote ${w.finish().toString('hex')} instead of refusing`);
}

describe('Writer refuses what its width cannot carry', () => {
  const widths = [
    { name: 'u8', bytes: 1, max: 0xff, write: (w: Writer, v: number) => w.u8(v) },
    { name: 'u16', bytes: 2, max: 0xffff, write: (w: Writer, v: number) => w.u16(v) },
    { name: 'u32', bytes: 4, max: 0xffff_ffff, write: (w: Writer, v: number) => w.u32(v) },
    { name: 'u32 patch', bytes: 4, max: 0xffff_ffff, write: (w: Writer, v: number) => w.u32(0).patchU32(0, v) },
  ] as const;

  for (const { name, bytes, max, write } of widths) {
    it(`${name}: 0 and ${max} are written; -1, ${max + 1}, 0.5, NaN and Infinity are refused`, () => {
      const low = new Writer(1);
      write(low, 0);
      expect(low.finish()).toEqual(Buffer.alloc(bytes));
      const high = new Writer(1);
      write(high, max);
      expect(high.finish()).toEqual(Buffer.alloc(bytes, 0xff));
      for (const bad of [-1, max + 1, 0.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        const e = refused((w) => (name === 'u32 patch' ? w.patchU32(0, bad) : write(w, bad)));
        expect(e.width).toBe(name === 'u32 patch' ? 'u32' : name);
        expect(e.value).toBe(bad);
      }
    });
  }

  it('u64: 0n and 2^64-1 are written; -1n and 2^64 are refused', () => {
    expect(new Writer(1).u64(0n).finish()).toEqual(Buffer.alloc(8));
    expect(new Writer(1).u64(2n ** 64n - 1n).finish()).toEqual(Buffer.alloc(8, 0xff));
    expect(refused((w) => w.u64(-1n)).value).toBe(-1n);
    expect(refused((w) => w.u64(2n ** 64n)).width).toBe('u64');
  });

  it('u64Number: 0 and 2^53-1 are written as 8 big-endian bytes; -1, 0.5, NaN, 2^53 and Infinity are refused', () => {
    const hexOf = (v: number) => new Writer(1).u64Number(v).finish().toString('hex');
    expect(hexOf(0)).toBe('0000000000000000');
    expect(hexOf(2 ** 53 - 1)).toBe('001fffffffffffff');
    // Above 2^32, so both halves carry a bit: 0x0000_0001_0000_0002.
    expect(hexOf(2 ** 32 + 2)).toBe('0000000100000002');
    for (const bad of [-1, 0.5, Number.NaN, 2 ** 53, Number.POSITIVE_INFINITY]) {
      const e = refused((w) => w.u64Number(bad));
      expect(e.width).toBe('u64');
      expect(e.value).toBe(bad);
    }
  });

  it('a str length is a u32: the prefix of an empty and of a 300-byte value is exact', () => {
    const w = new Writer(1).str(Buffer.alloc(0)).str(new Uint8Array(300));
    expect(w.finish().subarray(0, 8).toString('hex')).toBe('000000000000012c');
  });

  it('is a usage error with a stable code, and names the value and the width', () => {
    const e = refused((w) => w.u8(256));
    expect(e).toBeInstanceOf(UsageError);
    expect(e.code).toBe('ERR_USAGE');
    expect(e.message).toBe('256 does not fit a u8');
  });
});

describe('Reader failure kinds', () => {
  it('str16 reads a u16-length string; each failure says what kind it is, as data', () => {
    expect(new Reader(Buffer.from('0002686900', 'hex')).str16('s')).toBe('hi');
    expect(expectDecodeError(() => new Reader(Buffer.from('0003ab', 'hex')).str16('s')).kind).toBe('string-past-end');
    expect(expectDecodeError(() => new Reader(Buffer.from('00', 'hex')).str16('s')).kind).toBe('short');
    expect(expectDecodeError(() => new Reader(Buffer.from('00000009', 'hex')).count('n', 1)).kind).toBe(
      'count-past-end',
    );
    expect(expectDecodeError(() => new Reader(Buffer.from('00000003aabbcc', 'hex')).count('n', 1, 2)).kind).toBe(
      'count-over-limit',
    );
    expect(expectDecodeError(() => new Reader(new Writer().str('abc').finish()).str('s', 2)).kind).toBe(
      'string-too-long',
    );
    expect(expectDecodeError(() => new Reader(Buffer.from([1])).expectEnd('t')).kind).toBe('trailing-bytes');
  });
});
