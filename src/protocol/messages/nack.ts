/**
 * NACK (0x16)       str topic (cap 249) · u32 partition · u64 offset (the record's own) · str reason (cap 1024)
 * NACK_ACK (0x8A)   u8 dead_lettered · u16 attempts · str dlq_topic (empty unless dead-lettered)
 */
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';

export interface Nack {
  topic: string;
  partition: number;
  offset: bigint;
  reason: string;
}

export interface NackAck {
  deadLettered: boolean;
  attempts: number;
  dlqTopic: string;
}

export const NackRequest = defineMessage<Nack>({
  op: Op.NACK,
  name: 'NACK',
  encode(w, m) {
    w.str(m.topic).u32(m.partition).u64(m.offset).str(m.reason);
  },
  decode(r) {
    return {
      topic: r.str('topic', Caps.topic),
      partition: r.u32('partition'),
      offset: r.u64('offset'),
      reason: r.str('reason', Caps.nackReason),
    };
  },
});

export const NackAckReply = defineMessage<NackAck>({
  op: Op.NACK_ACK,
  name: 'NACK_ACK',
  encode(w, m) {
    w.u8(m.deadLettered ? 1 : 0)
      .u16(m.attempts)
      .str(m.dlqTopic);
  },
  decode(r) {
    return { deadLettered: r.u8('dead_lettered') !== 0, attempts: r.u16('attempts'), dlqTopic: r.str('dlq_topic') };
  },
});
