/**
 * PRODUCE (0x03)       u8 codec · str topic (cap 249) · str key · str value       value in plaintext on the wire
 * PRODUCE_ACK (0x82)   u32 partition · u64 offset      12 bytes; also the reply to PRODUCE_IDEMPOTENT
 *
 * Keys and values are capped at 65,536 bytes on decode and come back as zero-copy views of the payload; encoders
 * write what they are given (the client checks caps before sending).
 */
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';
import { strBound } from './field-path.js';

export interface Produce {
  codec: number;
  topic: string;
  key: Buffer;
  value: Buffer;
}

export interface ProduceAck {
  partition: number;
  offset: bigint;
}

export const ProduceRequest = defineMessage<Produce>({
  op: Op.PRODUCE,
  name: 'PRODUCE',
  encode(w, m) {
    w.reserve(1 + strBound(m.topic) + 8 + m.key.length + m.value.length);
    w.u8(m.codec).str(m.topic).str(m.key).str(m.value);
  },
  decode(r) {
    return {
      codec: r.u8('codec'),
      topic: r.str('topic', Caps.topic),
      key: r.strBytes('key'),
      value: r.strBytes('value'),
    };
  },
});

export const ProduceAckReply = defineMessage<ProduceAck>({
  op: Op.PRODUCE_ACK,
  name: 'PRODUCE_ACK',
  encode(w, m) {
    w.u32(m.partition).u64(m.offset);
  },
  decode(r) {
    return { partition: r.u32('partition'), offset: r.u64('offset') };
  },
});
