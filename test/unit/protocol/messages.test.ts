import { describe, expect, it } from 'vitest';
import { DecodeError } from '../../../src/errors.js';
import { type MessageCodec, decodePayload, encodePayload } from '../../../src/protocol/message.js';
import { RecordBatchWithHeadersReply } from '../../../src/protocol/messages/fetch.js';
import { Reader } from '../../../src/protocol/reader.js';
import { requestCodecs, replyCodecs } from '../../../src/protocol/registry.js';
import { recordBatchWithHeadersSamples, replySamples, requestSamples } from './samples.js';

type Case = [string, MessageCodec<unknown>, unknown];

function cases(table: Record<string, unknown>, samples: Record<string, unknown[]>): Case[] {
  return Object.entries(table).flatMap(([name, codec]) =>
    (samples[name] ?? []).map((m, i): Case => [`${name} #${i}`, codec as MessageCodec<unknown>, m]),
  );
}

const requestCases = cases(requestCodecs, requestSamples);
const replyCases = [
  ...cases(replyCodecs, replySamples),
  ...recordBatchWithHeadersSamples.map((m, i): Case => [
    `RECORD_BATCH+headers #${i}`,
    RecordBatchWithHeadersReply as MessageCodec<unknown>,
    m,
  ]),
];

describe('every frame round-trips', () => {
  it('has a sample for every codec in the registry', () => {
    const missing = [
      ...Object.keys(requestCodecs).filter((name) => !(name in requestSamples)),
      ...Object.keys(replyCodecs).filter((name) => !(name in replySamples)),
    ];
    expect(missing).toEqual([]);
  });

  it.each([...requestCases, ...replyCases])('%s: decode(encode(m)) = m, encode(decode(b)) = b', (_n, codec, m) => {
    const bytes = encodePayload(codec, m);
    const decoded = decodePayload(codec, bytes);
    expect(decoded).toEqual(m);
    expect(encodePayload(codec, decoded).equals(bytes)).toBe(true);
  });
});

describe('truncated payloads of every request', () => {
  // Every prefix either decodes (an optional trailing field is absent) or fails with a DecodeError naming a field
  // and an offset inside the prefix: never another exception type, never a read past the end.
  it.each(requestCases)('%s: every prefix decodes or throws DecodeError', (_n, codec, m) => {
    const bytes = encodePayload(codec, m);
    let failures = 0;
    for (let len = 0; len < bytes.length; len++) {
      const prefix = Buffer.from(bytes.subarray(0, len));
      try {
        codec.decode(new Reader(prefix));
      } catch (err) {
        failures++;
        expect(err).toBeInstanceOf(DecodeError);
        const e = err as DecodeError;
        expect(e.field).toMatch(/^[a-z_]+(\[\d+\])?(\.[a-z_]+(\[\d+\])?)*$/i);
        expect(e.offset).toBeGreaterThanOrEqual(0);
        expect(e.offset).toBeLessThanOrEqual(len);
      }
    }
    if (bytes.length > 0 && codec.name !== 'INIT_PRODUCER_ID') expect(failures).toBeGreaterThan(0);
  });
});
