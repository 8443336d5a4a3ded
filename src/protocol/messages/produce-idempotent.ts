/**
 * PRODUCE_IDEMPOTENT (0x0F)
 *   u64 pid · u32 seq · u16 epoch · u8 codec      the 15-byte fixed header
 *   str topic (cap 249) · str key · str value
 * reply: PRODUCE_ACK (0x82), see produce.ts
 *
 * Caps apply on decode; encoders write what they are given.
 */
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';
import { strBound } from './field-path.js';

export interface ProduceIdempotent {
  producerId: bigint;
  seq: number;
  epoch: number;
  codec: number;
  topic: string;
  key: Buffer;
  value: Buffer;
}

export const ProduceIdempotentRequest = defineMessage<ProduceIdempotent>({
  op: Op.PRODUCE_IDEMPOTENT,
  name: 'PRODUCE_IDEMPOTENT',
  encode(w, m) {
    w.reserve(15 + strBound(m.topic) + 8 + m.key.length + m.value.length);
    w.u64(m.producerId).u32(m.seq).u16(m.epoch).u8(m.codec).str(m.topic).str(m.key).str(m.value);
  },
  decode(r) {
    return {
      producerId: r.u64('pid'),
      seq: r.u32('seq'),
      epoch: r.u16('epoch'),
      codec: r.u8('codec'),
      topic: r.str('topic', Caps.topic),
      key: r.strBytes('key'),
      value: r.strBytes('value'),
    };
  },
});
