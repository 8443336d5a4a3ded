/** The share-group frames (docs/extensions.md) against hex assembled field by field, plus their malformed cases. */
import { describe, expect, it } from 'vitest';
import { FrameDecoder } from '../../../src/protocol/frame-decoder.js';
import { type MessageCodec, decodePayload, encodeFrame, encodePayload } from '../../../src/protocol/message.js';
import { ShareAckRequest } from '../../../src/protocol/messages/share-ack.js';
import { ShareFetchRequest, ShareRecordsReply } from '../../../src/protocol/messages/share-fetch.js';
import { ShareJoinRequest } from '../../../src/protocol/messages/share-join.js';
import { ShareResetRequest } from '../../../src/protocol/messages/share-reset.js';
import { requestCodecs, replyCodecs } from '../../../src/protocol/registry.js';
import { SEQ_CORREL, expectDecodeError, hex, loadFixture } from './fixtures.js';

interface FrameVector {
  name: string;
  codec: string;
  message: unknown;
  hex: string;
}

const vectors = loadFixture<{ vectors: FrameVector[] }>('wire/share-frames.json').vectors;
const codecs = { ...requestCodecs, ...replyCodecs } as unknown as Record<string, MessageCodec<unknown>>;

describe('share-group frame vectors', () => {
  it('cover every share opcode', () => {
    const names = Object.keys(codecs).filter((n) => n.startsWith('SHARE_'));
    expect(new Set(vectors.map((v) => v.codec))).toEqual(new Set(names));
  });

  it.each(vectors)('$name encodes to the vector and decodes back', (v) => {
    const codec = codecs[v.codec]!;
    expect(encodeFrame(codec, SEQ_CORREL, v.message).toString('hex')).toBe(hex(v.hex).toString('hex'));
    const [frame] = new FrameDecoder().push(hex(v.hex));
    expect(frame!.op).toBe(codec.op);
    expect(decodePayload(codec, frame!.payload)).toEqual(v.message);
  });
});

describe('malformed share frames fail with a DecodeError naming the field', () => {
  const fetch = { group: 'w', memberId: 'm', maxRecords: 10, maxWaitMs: 0, acks: [] };
  const range = { firstOffset: 1n, lastOffset: 1n, type: 1 as const, releaseDelayMs: 0, reason: '' };

  it('an unknown ack type', () => {
    const bytes = encodePayload(ShareAckRequest, {
      group: 'w',
      memberId: 'm',
      acks: [{ topic: 't', partition: 1, ranges: [range] }],
    });
    bytes[bytes.length - 9] = 9;
    expect(expectDecodeError(() => decodePayload(ShareAckRequest, bytes)).field).toBe('acks[0].ranges[0].ack_type');
  });

  it('max_records 0 and a wait past 30 s', () => {
    expect(
      expectDecodeError(() =>
        decodePayload(ShareFetchRequest, encodePayload(ShareFetchRequest, { ...fetch, maxRecords: 0 })),
      ).field,
    ).toBe('max_records');
    expect(
      expectDecodeError(() =>
        decodePayload(ShareFetchRequest, encodePayload(ShareFetchRequest, { ...fetch, maxWaitMs: 30_001 })),
      ).field,
    ).toBe('max_wait_ms');
  });

  it('a join without topics, a range count the payload cannot hold, an unknown reset target', () => {
    expect(
      expectDecodeError(() =>
        decodePayload(ShareJoinRequest, encodePayload(ShareJoinRequest, { group: 'w', topics: [] })),
      ).field,
    ).toBe('topic_count');
    const bytes = encodePayload(ShareFetchRequest, { ...fetch, acks: [{ topic: 't', partition: 1, ranges: [range] }] });
    bytes.writeUInt32BE(1_000, bytes.length - 29);
    expect(expectDecodeError(() => decodePayload(ShareFetchRequest, bytes)).field).toBe('acks[0].ranges.count');
    const reset = encodePayload(ShareResetRequest, { group: 'w', topic: '', to: 0, offset: 0n });
    reset[reset.length - 9] = 7;
    expect(expectDecodeError(() => decodePayload(ShareResetRequest, reset)).field).toBe('to');
  });

  it('SHARE_RECORDS: the fast decoder gives the strict one its errors (a cut value, a topic past its cap, a bad result)', () => {
    const one = {
      topic: 'jobs',
      partition: 1,
      offset: 11n,
      timestamp: 999n,
      deliveryCount: 2,
      lockDeadlineMs: 31_000n,
      key: Buffer.from('k'),
      value: Buffer.from('v'),
    };
    const m = { brokerTimeMs: 1_000n, records: [one, { ...one, offset: 12n }], results: [] };
    const bytes = encodePayload(ShareRecordsReply, m);
    expect(decodePayload(ShareRecordsReply, bytes)).toEqual(m);
    // Inside a larger received chunk: key and value are views of the chunk at the right offsets.
    const chunk = Buffer.alloc(bytes.length + 9, 0xee);
    bytes.copy(chunk, 5);
    const inChunk = decodePayload(ShareRecordsReply, chunk.subarray(5, 5 + bytes.length));
    expect(inChunk).toEqual(m);
    expect(inChunk.records[1]!.value.buffer).toBe(chunk.buffer);
    const cut = Buffer.from(bytes);
    cut.writeUInt32BE(1_000, 12 + 4 + 4 + 4 + 8 + 8 + 2 + 8 + 4 + 1);
    expect(expectDecodeError(() => decodePayload(ShareRecordsReply, cut)).field).toBe('records[0].value');
    const longTopic = Buffer.from(bytes);
    longTopic.writeUInt32BE(300, 12);
    expect(expectDecodeError(() => decodePayload(ShareRecordsReply, longTopic)).field).toBe('records[0].topic');
    const noResults = bytes.subarray(0, bytes.length - 2);
    expect(expectDecodeError(() => decodePayload(ShareRecordsReply, noResults)).field).toBe('results.count');
  });
});
