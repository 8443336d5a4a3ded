/**
 * INIT_PRODUCER_ID (0x0E)   [str producer_name (cap 256)]   an empty payload or an empty name: ephemeral producer
 * PRODUCER_ID (0x88)        u64 pid · u16 epoch              10 bytes
 *
 * An absent name decodes as undefined (wire.md §13.1); the name cap applies on decode only.
 */
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';

export interface InitProducerId {
  producerName?: string | undefined;
}

export interface ProducerId {
  producerId: bigint;
  epoch: number;
}

export const InitProducerIdRequest = defineMessage<InitProducerId>({
  op: Op.INIT_PRODUCER_ID,
  name: 'INIT_PRODUCER_ID',
  encode(w, m) {
    if (m.producerName !== undefined) w.str(m.producerName);
  },
  decode(r) {
    return { producerName: r.hasMore() ? r.str('producer_name', Caps.producerName) : undefined };
  },
});

export const ProducerIdReply = defineMessage<ProducerId>({
  op: Op.PRODUCER_ID,
  name: 'PRODUCER_ID',
  encode(w, m) {
    w.u64(m.producerId).u16(m.epoch);
  },
  decode(r) {
    return { producerId: r.u64('pid'), epoch: r.u16('epoch') };
  },
});
