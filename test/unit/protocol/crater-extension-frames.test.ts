import { describe, expect, it } from 'vitest';
import { ZERO_CORREL, decodePayload, encodeFrame, type MessageCodec } from '../../../src/protocol/message.js';
import { FrameDecoder } from '../../../src/protocol/frame-decoder.js';
import { replyCodecs, requestCodecs } from '../../../src/protocol/registry.js';
import { SEQ_CORREL, hex, loadFixture } from './fixtures.js';

interface FrameVector {
  name: string;
  codec: string;
  correl: 'zero' | 'seq';
  message: unknown;
  hex: string;
}

const vectors = loadFixture<{ vectors: FrameVector[] }>('wire/crater-extensions.json').vectors;
const codecs = { ...requestCodecs, ...replyCodecs } as unknown as Record<string, MessageCodec<unknown>>;

describe('docs/extensions.md frame vectors', () => {
  it.each(vectors)('$name encodes to the documented bytes and decodes back', (v) => {
    const codec = codecs[v.codec]!;
    const correl = v.correl === 'zero' ? ZERO_CORREL : SEQ_CORREL;
    expect(encodeFrame(codec, correl, v.message).toString('hex')).toBe(hex(v.hex).toString('hex'));
    const [frame] = new FrameDecoder().push(hex(v.hex));
    expect(decodePayload(codec, frame!.payload)).toEqual(v.message);
  });
});
