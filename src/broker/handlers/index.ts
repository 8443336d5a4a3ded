/** The broker core's handlers by opcode (the consumer side registers its own in consumer-handlers.ts). */
import { Op } from '../../protocol/opcodes.js';
import type { BrokerHandler } from '../handler-registry.js';
import { handler as auth } from './auth.js';
import { handler as hello } from './hello.js';
import { handler as identify } from './identify.js';

export const coreHandlers: ReadonlyArray<readonly [number, BrokerHandler]> = [
  [Op.HELLO, hello],
  [Op.IDENTIFY_CLIENT, identify],
  [Op.AUTH, auth],
];
