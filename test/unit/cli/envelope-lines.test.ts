import { describe, expect, it } from 'vitest';
import { type EnvelopeSource, envelopeEncodings, envelopeJson } from '../../../src/cli/render/envelope.js';
import { envelopeLines } from '../../../src/cli/render/envelope-lines.js';
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
