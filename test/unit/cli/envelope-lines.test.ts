import { describe, expect, it } from 'vitest';
import { type EnvelopeSource, envelopeEncodings, envelopeJson } from '../../../src/cli/render/envelope.js';
import { envelopeLines } from '../../../src/cli/render/envelope-lines.js';
import { EnvelopeWriter } from '../../../src/cli/render/envelope-writer.js';
import { decodeFetchTable } from '../../../src/client/fetch-table.js';
import { decodePayload, encodePayload } from '../../../src/protocol/message.js';
import { type FetchedRecord, recordBatchCodec } from '../../../src/protocol/messages/fetch.js';
import { prng as rng } from '../../helpers/prng.js';

const pieces = ['a', 'é', 'ключ', '😀', '"', '\\', '\n', '\t', '\u0000', '\u001f', '\u007f', '\u2028', '\u2029', ' '];

function bytesOf(next: () => number): Buffer {
  const kind = Math.floor(next() * 5);
  const n = Math.floor(next() * (next() < 0.1 ? 400 : 24));
  if (kind === 0) return Buffer.alloc(0);
  // Random bytes: mostly invalid UTF-8, sometimes a lone surrogate's encoding or a truncated sequence.
  if (kind === 1) return Buffer.from(Array.from({ length: n }, () => Math.floor(next() * 256)));
  if (kind === 2) return Buffer.from('x'.repeat(n) + (next() < 0.5 ? '' : 'y'));
  if (kind === 3) return Buffer.concat([Buffer.from('ok'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xe2, 0x82])]);
  return Buffer.from(Array.from({ length: n }, () => pieces[Math.floor(next() * pieces.length)]).join(''), 'utf8');
}

const bigints = [
  0n,
  1n,
  9n,
  10n,
  99n,
  100n,
  2n ** 53n - 1n,
  2n ** 53n,
  2n ** 63n - 1n,
  -1n,
  -(2n ** 53n) + 1n,
  -(2n ** 60n),
];

function bigintOf(next: () => number): bigint {
  if (next() < 0.3) return bigints[Math.floor(next() * bigints.length)]!;
  return BigInt(Math.floor(next() * 2 ** 48)) * (next() < 0.1 ? -1n : 1n);
}

function recordOf(next: () => number, topic: string): EnvelopeSource {
  const headers =
    next() < 0.4
      ? undefined
      : Array.from({ length: Math.floor(next() * 4) }, () => ({
          name: bytesOf(next).toString('utf8'),
          value: bytesOf(next),
        }));
  return {
    topic,
    partition: Math.floor(next() * (next() < 0.5 ? 10 : 100_000)),
    offset: bigintOf(next),
    timestamp: bigintOf(next),
    key: bytesOf(next),
    value: bytesOf(next),
    headers,
  };
}

describe('envelopeLines (the consume --json fast path)', () => {
  it('renders random records byte for byte as the reference envelopeJson, in every encoding', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const next = rng(seed);
      const topics = ['orders', 'we"ird\\tópic', '😀'];
      // Records of several topics in a run, as one FETCH over several topics returns them.
      const records = Array.from({ length: 50 }, () => recordOf(next, topics[Math.floor(next() * topics.length)]!));
      for (const encoding of envelopeEncodings) {
        const lines = records.map((r) => Buffer.from(`${envelopeJson(r, encoding)}\n`, 'utf8'));
        const { bytes, lengths } = envelopeLines(records, encoding);
        expect(bytes.equals(Buffer.concat(lines)), `seed ${seed}, ${encoding}`).toBe(true);
        expect(lengths).toEqual(lines.map((l) => l.length));
      }
    }
  });

  it('grows its buffer past the first guess (values far larger than a line) and renders an empty fetch empty', () => {
    const big = { topic: 't', partition: 1, offset: 5n, timestamp: 6n, key: Buffer.alloc(0), value: Buffer.alloc(0) };
    const records = [
      { ...big, value: Buffer.alloc(100_000, 0x61) },
      { ...big, key: Buffer.alloc(50_000, 0xff), value: Buffer.from('v') },
    ];
    const { bytes } = envelopeLines(records);
    expect(bytes.toString('utf8')).toBe(records.map((r) => `${envelopeJson(r)}\n`).join(''));
    expect(envelopeLines([]).bytes.length).toBe(0);
  });
});

describe('envelopeLines of a FetchTable (rendered from the FETCH reply frame)', () => {
  // What the wire can carry: unsigned 64-bit numbers, header names within their 256-byte cap.
  const wire = (r: EnvelopeSource, withHeaders: boolean): FetchedRecord => ({
    ...r,
    offset: BigInt.asUintN(64, r.offset),
    timestamp: BigInt.asUintN(64, r.timestamp),
    headers: withHeaders ? (r.headers ?? []).map((h) => ({ ...h, name: h.name.slice(0, 80) })) : undefined,
  });

  it('renders random records byte for byte as the reference, with and without header blocks, reusing its buffer', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const next = rng(seed);
      const topics = ['orders', 'we"ird\\tópic', '😀'];
      for (const withHeaders of [true, false]) {
        const records = Array.from({ length: 40 }, () =>
          wire(recordOf(next, topics[Math.floor(next() * topics.length)]!), withHeaders),
        );
        const payload = encodePayload(recordBatchCodec(withHeaders), { records });
        const table = decodeFetchTable(payload, withHeaders)!;
        expect(table.records()).toEqual(decodePayload(recordBatchCodec(withHeaders), payload).records);
        for (const encoding of envelopeEncodings) {
          const out = new EnvelopeWriter(encoding, true, 64);
          const lines = records.map((r) => Buffer.from(`${envelopeJson(r, encoding)}\n`, 'utf8'));
          const first = envelopeLines(table, encoding, out);
          expect(first.bytes.equals(Buffer.concat(lines)), `seed ${seed}, ${encoding}, ${withHeaders}`).toBe(true);
          expect(first.lengths).toEqual(lines.map((l) => l.length));
          out.recycle(first.bytes);
          const odd = [3, 0, 39];
          const picked = envelopeLines(table.pick(odd).slice(1), encoding, out).bytes;
          expect(picked.equals(Buffer.concat([lines[0]!, lines[39]!]))).toBe(true);
        }
      }
    }
  });

  it('reads 64-bit offsets past 2^53 as decimal strings and empty keys as null', () => {
    const records = [2n ** 53n - 1n, 2n ** 53n, 2n ** 64n - 1n].map((offset) => ({
      topic: 't',
      partition: 4_000_000_000,
      offset,
      timestamp: offset,
      key: Buffer.alloc(0),
      value: Buffer.from([0xff, 0x00]),
    }));
    const table = decodeFetchTable(encodePayload(recordBatchCodec(false), { records }), false)!;
    expect(envelopeLines(table).bytes.toString()).toBe(records.map((r) => `${envelopeJson(r)}\n`).join(''));
    expect(table.offset(2)).toBe(2n ** 64n - 1n);
  });

  it('copies text four bytes at a time only where no byte of the four needs escaping, and writes every digit count', () => {
    // Every byte value at every place of a word, in values of every length mod 4: the word-at-a-time copy's test.
    const values: Buffer[] = [];
    for (let b = 0; b < 256; b++)
      for (let at = 0; at < 8; at++) {
        const v = Buffer.from('abcdefgh'.slice(0, 5 + (b % 4)) + 'abcdefgh'.slice(0, at % 4));
        v[at % v.length] = b;
        values.push(v);
      }
    const numbers = [
      0,
      9,
      10,
      99,
      100,
      2 ** 31 - 1,
      2 ** 31,
      2 ** 32 - 1,
      10 ** 8 - 1,
      10 ** 8,
      2 ** 53 - 1,
      10 ** 9 + 7,
    ];
    for (let e = 10; e <= 15; e++) numbers.push(10 ** e - 1, 10 ** e, 10 ** e + 10 ** 7 + 1);
    const records = values.map((value, i) => ({
      topic: 'digits',
      partition: numbers[i % numbers.length]! % 2 ** 32,
      offset: BigInt(numbers[(i + 1) % numbers.length]!),
      timestamp: BigInt(numbers[(i + 2) % numbers.length]!),
      key: value.subarray(1),
      value,
    }));
    const table = decodeFetchTable(encodePayload(recordBatchCodec(false), { records }), false)!;
    expect(envelopeLines(table).bytes.toString()).toBe(records.map((r) => `${envelopeJson(r)}\n`).join(''));
  });

  it('leaves malformed frames to the strict decoder (undefined), as truncated, padded or over-long input', () => {
    const records = [
      { topic: 't', partition: 1, offset: 1n, timestamp: 2n, key: Buffer.from('k'), value: Buffer.from('v') },
    ];
    const headers = [{ name: 'h', value: Buffer.from('x') }];
    const good = encodePayload(recordBatchCodec(true), { records: records.map((r) => ({ ...r, headers })) });
    expect(decodeFetchTable(good, true)?.headers(0)).toEqual(headers);
    expect(decodeFetchTable(good.subarray(0, good.length - 1), true)).toBeUndefined();
    expect(decodeFetchTable(Buffer.concat([good, Buffer.from([0])]), true)).toBeUndefined();
    expect(decodeFetchTable(good, false)).toBeUndefined();
    const tooMany = Buffer.from(good);
    tooMany.writeUInt16BE(65, good.length - 2 - 4 - 1 - 4 - 1);
    expect(decodeFetchTable(tooMany, true)).toBeUndefined();
    expect(decodeFetchTable(Buffer.from([0, 0]), false)).toBeUndefined();
  });
});
