import { describe, expect, it } from 'vitest';
import {
  decodeBytes,
  encodeBytes,
  envelopeJson,
  envelopeEncodings,
  isExactUtf8,
  parseEnvelope,
  toEnvelope,
} from '../../../src/cli/render/envelope.js';
import { envelopeLines } from '../../../src/cli/render/envelope-lines.js';
import { stringifyJson } from '../../../src/cli/render/json.js';

const binary = Buffer.from([0x00, 0xff, 0x0a, 0xc3, 0x28, 0x80]);

describe('record envelope', () => {
  it('encodes exact UTF-8 as utf8 and anything else as base64, or hex when asked', () => {
    expect(encodeBytes(Buffer.from('héllo\n'))).toEqual({ utf8: 'héllo\n' });
    expect(encodeBytes(binary)).toEqual({ base64: binary.toString('base64') });
    expect(encodeBytes(Buffer.from('abc'), 'hex')).toEqual({ hex: '616263' });
    expect(encodeBytes(Buffer.from('abc'), 'base64')).toEqual({ base64: 'YWJj' });
    expect(isExactUtf8(Buffer.from([0xef, 0xbb, 0xbf, 0x41]))).toBe(true);
    expect(isExactUtf8(Buffer.from([0xe2, 0x82]))).toBe(false);
  });

  it('round-trips binary key, empty value and ordered duplicate headers byte for byte through a JSON line', () => {
    const record = {
      topic: 't',
      partition: 2,
      offset: 2n ** 60n,
      timestamp: 1_700_000_000_000n,
      key: binary,
      value: Buffer.alloc(0),
      headers: [
        { name: 'h', value: Buffer.from([0xfe]) },
        { name: 'h', value: Buffer.from('second') },
        { name: 'empty', value: Buffer.alloc(0) },
      ],
    };
    const line = stringifyJson(toEnvelope(record));
    const doc = JSON.parse(line);
    expect(doc.offset).toBe('1152921504606846976');
    expect(doc.timestamp).toBe(1_700_000_000_000);
    expect(doc.value).toEqual({ utf8: '' });
    const back = parseEnvelope(line, 'stdin:1');
    expect(back.key!.equals(binary)).toBe(true);
    expect(back.value.length).toBe(0);
    expect(back.headers!.map((h) => [h.name, h.value.toString('hex')])).toEqual([
      ['h', 'fe'],
      ['h', Buffer.from('second').toString('hex')],
      ['empty', ''],
    ]);
  });

  it('prints a missing key as null and headers the reply could not carry as null', () => {
    const env = toEnvelope({
      topic: 't',
      partition: 1,
      offset: 0n,
      timestamp: 0n,
      key: Buffer.alloc(0),
      value: Buffer.from('v'),
    });
    expect(env.key).toBeNull();
    expect(env.headers).toBeNull();
    expect(parseEnvelope(stringifyJson(env), 'x:1')).toEqual({
      key: undefined,
      value: Buffer.from('v'),
      headers: undefined,
    });
  });

  it('accepts a bare string as utf8 and null as empty', () => {
    expect(parseEnvelope('{"key":"k","value":null}', 'x:1')).toEqual({
      key: Buffer.from('k'),
      value: Buffer.alloc(0),
      headers: undefined,
    });
    expect(decodeBytes({ hex: '00ff' }, 'f')).toEqual(Buffer.from([0, 255]));
  });

  it('rejects malformed input with a message naming where it is (no record is built)', () => {
    expect(() => parseEnvelope('{nope', 'in.jsonl:7')).toThrow(/in\.jsonl:7: not JSON/);
    expect(() => parseEnvelope('[1]', 'in.jsonl:1')).toThrow(/expected a JSON object/);
    expect(() => parseEnvelope('{"value":{"base64":"a$=="}}', 'in.jsonl:2')).toThrow(
      /in\.jsonl:2: value: not canonical base64/,
    );
    expect(() => parseEnvelope('{"value":{"hex":"abc"}}', 'x:3')).toThrow(/even-length hex/);
    expect(() => parseEnvelope('{"value":{"utf8":"a","hex":"00"}}', 'x:4')).toThrow(/exactly one of/);
    expect(() => parseEnvelope('{"value":{"latin1":"a"}}', 'x:5')).toThrow(/unknown encoding "latin1"/);
    expect(() => parseEnvelope('{"value":"v","headers":{}}', 'x:6')).toThrow(/headers must be an array/);
    expect(() => parseEnvelope('{"value":"v","headers":[{"value":"x"}]}', 'x:7')).toThrow(
      /headers\[0\] needs a string "name"/,
    );
  });

  it('envelopeJson writes exactly the text of stringifyJson(toEnvelope(...)) for every encoding', () => {
    const surrogate = Buffer.from([0xed, 0xa0, 0x80]); // a UTF-16 surrogate in UTF-8: not exact text
    const records = [
      { topic: 't', partition: 1, offset: 0n, timestamp: 0n, key: Buffer.alloc(0), value: Buffer.from('plain') },
      {
        topic: 'we"ird\\topic',
        partition: 1024,
        offset: 2n ** 63n - 1n,
        timestamp: -(2n ** 60n),
        key: Buffer.from('k\u0000"\\\u2028é😀'),
        value: binary,
        headers: [
          { name: 'h"1', value: surrogate },
          { name: 'h', value: Buffer.from([0xef, 0xbf, 0xbd]) },
          { name: 'empty', value: Buffer.alloc(0) },
        ],
      },
      {
        topic: 'h',
        partition: 3,
        offset: 2n ** 53n - 1n,
        timestamp: 2n ** 53n,
        key: surrogate,
        value: Buffer.alloc(0),
        headers: [],
      },
    ];
    const plain = { ...records[0]!, topic: 'é', key: Buffer.from('ключ'), value: Buffer.from('x'.repeat(300)) };
    records.push(plain, { ...plain, value: Buffer.from('tab\there') }, { ...plain, value: Buffer.from('"q"') });
    for (const encoding of envelopeEncodings) {
      for (const r of records) expect(envelopeJson(r, encoding)).toBe(stringifyJson(toEnvelope(r, encoding)));
      // envelopeLines: the same lines, newline-terminated, in one buffer, with each line's length in bytes.
      const lines = records.map((r) => `${stringifyJson(toEnvelope(r, encoding))}\n`);
      const { bytes, lengths } = envelopeLines(records, encoding);
      expect(bytes.toString('utf8')).toBe(lines.join(''));
      expect(lengths).toEqual(lines.map((l) => Buffer.byteLength(l)));
    }
    expect(isExactUtf8(surrogate)).toBe(false);
  });
});
