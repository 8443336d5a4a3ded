import { describe, expect, it } from 'vitest';
import { DecodeError } from '../../../src/errors.js';
import { decodePayload } from '../../../src/protocol/message.js';
import { ProduceBatchAckReply } from '../../../src/protocol/messages/produce-batch.js';
import { Writer } from '../../../src/protocol/writer.js';

function payload(acks: { partition: number; offset: bigint }[], count = acks.length): Buffer {
  const w = new Writer();
  w.u32(count);
  for (const a of acks) w.u32(a.partition).u64(a.offset);
  return w.u16(0).str('').finish();
}

describe('PRODUCE_BATCH_ACK decode', () => {
  it('reads offsets on both sides of 2^53 and up to 2^64 - 1 exactly', () => {
    const acks = [
      { partition: 1, offset: 0n },
      { partition: 2, offset: 2n ** 32n + 7n },
      { partition: 3, offset: 2n ** 53n - 1n },
      { partition: 4, offset: 2n ** 53n },
      { partition: 0xffff_ffff, offset: 2n ** 64n - 1n },
    ];
    const m = ProduceBatchAckReply;
    expect(decodePayload(m, payload(acks)).acks).toEqual(acks);
    const w = new Writer();
    m.encode(w, { acks, errorCode: 7, errorMessage: 'partial' });
    expect(decodePayload(m, w.finish())).toEqual({ acks, errorCode: 7, errorMessage: 'partial' });
  });

  it('refuses a count the payload cannot hold', () => {
    const bytes = payload([{ partition: 1, offset: 5n }], 2).subarray(0, 4 + 12 + 6);
    let error: unknown;
    try {
      decodePayload(ProduceBatchAckReply, bytes);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DecodeError);
    expect(String((error as Error).message)).toContain('count 2 cannot fit');
  });
});
