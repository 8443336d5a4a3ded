/**
 * INIT_PRODUCER_ID (0x0E)   [str producer_name (cap 256)]   an empty payload or an empty name: ephemeral producer
 *                           [u64 pid · u16 epoch]            crater only: resume that session of a named producer
 * PRODUCER_ID (0x88)        u64 pid · u16 epoch              10 bytes
 *
 * An absent name decodes as undefined (wire.md §13.1); the name cap applies on decode only. The resume fields let
 * a durable producer that lost its connection (a broker restart) re-bind to its current epoch instead of bumping it,
 * so the retry of an in-flight batch still matches its memo. A MoonMQ broker ignores bytes after the name and bumps
 * the epoch, so clients send them only to a broker that identified itself as crater (extensions.md §2).
 */
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';

export interface InitProducerId {
  producerName?: string | undefined;
  /** Resume this (pid, epoch) of the named producer rather than start a new epoch (crater extension). */
  resume?: ProducerId | undefined;
}

export interface ProducerId {
  producerId: bigint;
  epoch: number;
}

export const InitProducerIdRequest = defineMessage<InitProducerId>({
  op: Op.INIT_PRODUCER_ID,
  name: 'INIT_PRODUCER_ID',
  encode(w, m) {
    if (m.producerName !== undefined || m.resume) w.str(m.producerName ?? '');
    if (m.resume) w.u64(m.resume.producerId).u16(m.resume.epoch);
  },
  decode(r) {
    const producerName = r.hasMore() ? r.str('producer_name', Caps.producerName) : undefined;
    if (r.remaining < 10) return { producerName };
    return { producerName, resume: { producerId: r.u64('resume_pid'), epoch: r.u16('resume_epoch') } };
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
