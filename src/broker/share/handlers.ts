/** The share-group handlers by opcode (crater extension), appended to the core table in handlers/index.ts. */
import { Op } from '../../protocol/opcodes.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';
import { handler as shareAck } from '../handlers/share-ack.js';
import { handler as shareAlter } from '../handlers/share-alter.js';
import { handler as shareDescribe } from '../handlers/share-describe.js';
import { handler as shareFetch } from '../handlers/share-fetch.js';
import { handler as shareHeartbeat } from '../handlers/share-heartbeat.js';
import { handler as shareJoin } from '../handlers/share-join.js';
import { handler as shareLeave } from '../handlers/share-leave.js';
import { handler as shareList } from '../handlers/share-list.js';
import { handler as shareReset } from '../handlers/share-reset.js';

export const shareHandlers: ReadonlyArray<readonly [op: number, handler: RequestHandler<BrokerCore>]> = [
  [Op.SHARE_JOIN, shareJoin],
  [Op.SHARE_HEARTBEAT, shareHeartbeat],
  [Op.SHARE_LEAVE, shareLeave],
  [Op.SHARE_FETCH, shareFetch],
  [Op.SHARE_ACK, shareAck],
  [Op.SHARE_DESCRIBE, shareDescribe],
  [Op.SHARE_ALTER, shareAlter],
  [Op.SHARE_RESET, shareReset],
  [Op.SHARE_LIST, shareList],
];
