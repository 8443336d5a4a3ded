/**
 * commonRecordSize, the one record check the two raw hot paths share (record.ts's readCommonRecord and
 * raw-reader.ts's scanPlain): it takes exactly the common records readRecord accepts, and every check it makes can
 * turn a record down.
 */
import { describe, expect, it } from 'vitest';
import {
  LENGTH_PREFIX_BYTES,
  RecordAttr,
  commonRecordSize,
  decodeControlValue,
  encodeControlValue,
  encodeRecord,
  readCommonRecord,
  readRecord,
} from '../../../src/storage/record.js';
import { prng } from '../../helpers/prng.js';

const PLAIN = 0xff;
const COMMON = RecordAttr.TRANSACTIONAL | RecordAttr.HEADERS;

function record(attrs = 0, key = 'k', value = 'value'): Buffer {
  return encodeRecord({ attrs, timestamp: 1_700_000_000_000n, key: Buffer.from(key), value: Buffer.from(value) });
}

describe('commonRecordSize', () => {
  it('sizes a whole record and turns down one that any check fails', () => {
    const r = record();
    const h = LENGTH_PREFIX_BYTES;
    expect(commonRecordSize(r, 0, r.length, 0, PLAIN)).toBe(r.length);
    expect(commonRecordSize(r, 0, r.length - 1, 0, PLAIN)).toBe(0); // cut by `end`
    const flip = (at: number, mask = 0x01) => {
      const b = Buffer.from(r);
      b[at]! ^= mask;
      return b;
    };
    expect(commonRecordSize(flip(0), 0, r.length, 0, PLAIN)).toBe(0); // length prefix's high bytes
    expect(commonRecordSize(flip(7, 0x10), 0, r.length, 0, PLAIN)).toBe(0); // body length
    expect(commonRecordSize(flip(h + 6), 0, r.length, 0, PLAIN)).toBe(0); // header CRC (timestamp byte)
    expect(commonRecordSize(flip(h + 1), 0, r.length, 0, PLAIN)).toBe(0); // header CRC (key_len)
    const payload = flip(r.length - 6);
    expect(commonRecordSize(payload, 0, r.length, 0, PLAIN)).toBe(0); // payload CRC
    expect(commonRecordSize(payload, 0, r.length, r.length, PLAIN)).toBe(r.length); // ...skipped when verified
  });

  it('turns down attrs in `excluded`: plain takes attrs 0 only, common takes codec and control bits', () => {
    const gzip = record(1);
    const control = record(RecordAttr.CONTROL);
    expect(commonRecordSize(gzip, 0, gzip.length, 0, PLAIN)).toBe(0);
    expect(commonRecordSize(gzip, 0, gzip.length, 0, COMMON)).toBe(gzip.length);
    expect(commonRecordSize(control, 0, control.length, 0, COMMON)).toBe(control.length);
    const txn = encodeRecord({
      attrs: 0,
      timestamp: 1n,
      key: Buffer.alloc(0),
      value: Buffer.from('v'),
      producerId: 7n,
      epoch: 1,
    });
    expect(readRecord(txn, 0).ok).toBe(true);
    expect(commonRecordSize(txn, 0, txn.length, 0, COMMON)).toBe(0);
  });

  it('over seeded random corruptions, takes a record only when readRecord reads the same one', () => {
    const rand = prng(0xc0de);
    const base = Buffer.concat([record(0, 'key-1', 'first value'), record(1, '', 'second'), record(0, 'k3', '')]);
    for (let n = 0; n < 2_000; n++) {
      const b = Buffer.from(base);
      b[Math.floor(rand() * b.length)] = Math.floor(rand() * 256);
      for (let p = 0; p < b.length;) {
        const size = commonRecordSize(b, p, b.length, 0, COMMON);
        const strict = readRecord(b, p, b.length);
        if (size > 0) {
          if (!strict.ok)
            throw new Error(`commonRecordSize took a record at ${p} that readRecord refuses: ${strict.detail}`);
          expect(strict.record.size).toBe(size);
          const fast = readCommonRecord(b, p, b.length, 0, 5n, 100);
          expect(fast).toEqual({ ...strict.record, offset: 5n, nextOffset: BigInt(100 + p + size) });
        }
        if (!strict.ok) break;
        p += strict.record.size;
      }
    }
  });
});

describe('decodeControlValue', () => {
  it('reads marker, pid and epoch, ignores bytes after them, and gives undefined for fewer than 11', () => {
    const v = encodeControlValue(1, 2n ** 63n + 5n, 0xfffe);
    expect(decodeControlValue(v)).toEqual({ marker: 1, producerId: 2n ** 63n + 5n, epoch: 0xfffe });
    expect(decodeControlValue(Buffer.concat([v, Buffer.from([9])]))).toEqual(decodeControlValue(v));
    expect(decodeControlValue(v.subarray(0, 10))).toBeUndefined();
  });
});
