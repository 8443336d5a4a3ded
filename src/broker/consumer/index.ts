/** The consumer side's public surface inside the broker: the runtime factory and what handlers and tests use. */
import type { BrokerCore } from '../core.js';
import { type ConsumerRuntimeOptions, ConsumerService } from './runtime.js';

export { ConsumerDefaults, ConsumerService, consumerRuntimeOf, type ConsumerRuntimeOptions } from './runtime.js';
export { CONSUMER_OFFSETS_TOPIC, OffsetStore } from './offset-store.js';
export { GroupCoordinator, GroupState, type GroupStateName } from './group-coordinator.js';
export { decodeDlqEnvelope, encodeDlqEnvelope, type DlqEnvelope } from './dlq-envelope.js';
export { DLQ_SUFFIX, dlqTopicFor } from './nack.js';

/**
 * Creates the runtime for `broker`. Options come from the argument, else from `broker.config.consumer` (timers
 * shortened for tests through `Broker.start({consumer})`).
 */
export function createConsumerRuntime(broker: BrokerCore, options?: ConsumerRuntimeOptions): ConsumerService {
  return new ConsumerService(broker, { ...broker.config.consumer, ...options });
}
