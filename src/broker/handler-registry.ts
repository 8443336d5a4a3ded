/**
 * The only switch on the opcode in the broker: which handler serves a request op, and in which connection states
 * it is allowed (wire.md §1 state machine). HEARTBEAT_REQ/RESP and GOODBYE are served by the connection itself.
 */
import { ErrorCode } from '../protocol/error-codes.js';
import { Op, formatOp } from '../protocol/opcodes.js';
import { consumerHandlers } from './consumer-handlers.js';
import type { BrokerCore } from './core.js';
import type { ConnectionState, RequestHandler } from './handler.js';

export type BrokerHandler = RequestHandler<BrokerCore>;

/** Ops allowed before authentication, per state; after it, everything except these one-shot handshake ops. */
const handshakeOps = {
  new: new Set<number>([Op.HELLO]),
  greeted: new Set<number>([Op.IDENTIFY_CLIENT, Op.AUTH, Op.AUTH_SCRAM, Op.AUTH_SCRAM_FINAL]),
} as const;
const oneShotOps = new Set<number>([Op.HELLO, Op.AUTH, Op.AUTH_SCRAM, Op.AUTH_SCRAM_FINAL]);
/** Allowed in every state and handled by the connection layer. */
export const connectionOps = new Set<number>([Op.HEARTBEAT_REQ, Op.HEARTBEAT_RESP, Op.GOODBYE]);

export function isAllowedIn(state: ConnectionState, op: number): boolean {
  if (connectionOps.has(op)) return true;
  if (state === 'authenticated') return !oneShotOps.has(op);
  return handshakeOps[state].has(op);
}

export class HandlerRegistry {
  private readonly table: (BrokerHandler | undefined)[] = new Array<BrokerHandler | undefined>(0x80);

  constructor(entries: Iterable<readonly [number, BrokerHandler]>) {
    for (const [op, handler] of entries) this.register(op, handler);
  }

  register(op: number, handler: BrokerHandler): void {
    if (op < 0x01 || op > 0x7f) throw new RangeError(`op 0x${op.toString(16)} is not a request op`);
    if (this.table[op]) throw new Error(`op 0x${op.toString(16)} registered twice`);
    this.table[op] = handler;
  }

  get(op: number): BrokerHandler | undefined {
    return op < 0x80 ? this.table[op] : undefined;
  }

  /** The handler for `op` in `state`, or the error a request with it gets (ERR_UNKNOWN_OP, ERR_BAD_FRAME). */
  resolve(state: ConnectionState, op: number): BrokerHandler | { code: number; message: string } {
    const handler = this.get(op);
    if (!handler) return { code: ErrorCode.UNKNOWN_OP, message: formatOp(op) };
    if (!isAllowedIn(state, op)) {
      return { code: ErrorCode.BAD_FRAME, message: `${formatOp(op)} not allowed in state ${state}` };
    }
    return handler;
  }
}

/** The broker's handlers: the core ones and the consumer side's. */
export function createHandlerRegistry(core: Iterable<readonly [number, BrokerHandler]>): HandlerRegistry {
  return new HandlerRegistry([...core, ...consumerHandlers]);
}
