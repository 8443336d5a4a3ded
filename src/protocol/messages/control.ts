/**
 * The empty-payload frames shared by many pairs:
 *
 *   OK (0x86)              empty   the success reply of SUBSCRIBE, COMMIT, CREATE_TOPIC, LEAVE_GROUP, …; ends a FETCH
 *   GOODBYE (0x0A)         empty   the server closes without replying
 *   HEARTBEAT_REQ (0x0B)   empty   either side; answered with HEARTBEAT_RESP carrying the same correl
 *   HEARTBEAT_RESP (0x0C)  empty
 */
import { emptyMessage } from '../message.js';
import { Op } from '../opcodes.js';

export type Empty = Record<string, never>;

export const OkReply = emptyMessage(Op.OK, 'OK');
export const GoodbyeRequest = emptyMessage(Op.GOODBYE, 'GOODBYE');
export const HeartbeatRequest = emptyMessage(Op.HEARTBEAT_REQ, 'HEARTBEAT_REQ');
export const HeartbeatReply = emptyMessage(Op.HEARTBEAT_RESP, 'HEARTBEAT_RESP');
