import { describe, expect, it } from 'vitest';
import { DecodeError } from '../../../../src/errors.js';
import { decodeDlqEnvelope, encodeDlqEnvelope } from '../../../../src/broker/consumer/dlq-envelope.js';

describe('DLQ envelope', () => {
  const envelope = {
    topic: 'orders',
    partition: 2,
    offset: 31n,
    timestamp: 1_700_000_000_000n,
    group: 'g',
    attempts: 3,
    reason: 'bad',
    value: Buffer.from('v'),
  };

  it('encodes wire.md §13 item 8 byte for byte', () => {
    const hex = encodeDlqEnvelope(envelope).toString('hex');
    expect(hex).toBe(
      [
        '01',
        '00000006' + Buffer.from('orders').toString('hex'),
        '00000002',
        '000000000000001f',
        '0000018bcfe56800',
        '00000001' + '67',
        '0003',
        '00000003' + Buffer.from('bad').toString('hex'),
        '00000001' + '76',
      ].join(''),
    );
  });

  it('round-trips and refuses an unknown version', () => {
    const bytes = encodeDlqEnvelope(envelope);
    expect(decodeDlqEnvelope(bytes)).toEqual(envelope);
    const v2 = Buffer.from(bytes);
    v2[0] = 2;
    expect(() => decodeDlqEnvelope(v2)).toThrow(DecodeError);
  });
});
