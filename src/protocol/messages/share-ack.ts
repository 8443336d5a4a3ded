/**
 * SHARE_ACK (0x64, crater)
 *   str group (cap 256) · str member_id (cap 256) · ack block (share-acks.ts)
 *
 * SHARE_ACK_RESULT (0xE2, crater)
 *   ack results (share-acks.ts)
 *
 * The reply is sent once every change it reports is durable in `__share_group_state`.
 */
import { Caps } from '../limits.js';
import { defineMessage } from '../message.js';
import { Op } from '../opcodes.js';
import {
  type ShareAckResult,
  type SharePartitionAcks,
  readAckBlock,
  readAckResults,
  writeAckBlock,
  writeAckResults,
} from './share-acks.js';

export interface ShareAck {
  group: string;
  memberId: string;
  acks: SharePartitionAcks[];
}

export interface ShareAckResults {
  results: ShareAckResult[];
}

export const ShareAckRequest = defineMessage<ShareAck>({
  op: Op.SHARE_ACK,
  name: 'SHARE_ACK',
  encode(w, m) {
    w.str(m.group).str(m.memberId);
    writeAckBlock(w, m.acks);
  },
  decode(r) {
    return { group: r.str('group', Caps.group), memberId: r.str('member_id', Caps.memberId), acks: readAckBlock(r) };
  },
});

export const ShareAckResultReply = defineMessage<ShareAckResults>({
  op: Op.SHARE_ACK_RESULT,
  name: 'SHARE_ACK_RESULT',
  encode(w, m) {
    writeAckResults(w, m.results);
  },
  decode(r) {
    return { results: readAckResults(r) };
  },
});
