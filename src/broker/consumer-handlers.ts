/**
 * The consumer side's entry points, owned by the consumer-side helper: the handlers it registers (FETCH, SUBSCRIBE,
 * COMMIT, groups, NACK) and the factory for its runtime. The broker core reads only these two exports.
 */
import type { BrokerCore, ConsumerRuntime } from './core.js';
import type { RequestHandler } from './handler.js';

export const consumerHandlers: ReadonlyArray<readonly [op: number, handler: RequestHandler<BrokerCore>]> = [];

export function createConsumerRuntime(_broker: BrokerCore): ConsumerRuntime | undefined {
  return undefined;
}
