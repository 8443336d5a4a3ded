/**
 * BEGIN_TXN (0x13)   empty
 * reply: OK (0x86); ERR 51 without a durable producer or with a transaction already open
 */
import { emptyMessage } from '../message.js';
import { Op } from '../opcodes.js';

export const BeginTxnRequest = emptyMessage(Op.BEGIN_TXN, 'BEGIN_TXN');
