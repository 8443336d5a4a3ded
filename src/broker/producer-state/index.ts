/** Producer ids, epochs, idempotent sequence checks and the durable `__producer_state` memos. */
export {
  ProducerStateRuntime,
  DEFAULT_PRODUCER_EXPIRY_MS,
  DEFAULT_EXPIRY_SWEEP_MS,
  type ProducerStateOptions,
} from './runtime.js';
export { SESSION_PRODUCER, bindingOf, stateFor, type DurableProducer, type ProducerBinding } from './binding.js';
export { PidAllocator } from './pid-allocator.js';
export { MemoStore, stateWrites, type StateWrite } from './memo-store.js';
export { replayProducerState, segmentFileOf, type ProducerStateSnapshot } from './replay.js';
export { verifyLastMemos, type MemoRepair } from './verify-memos.js';
export {
  batchRules,
  singleRules,
  checkBatch,
  checkSingle,
  afterBatch,
  afterSingle,
  type SequenceOutcome,
  type SequenceState,
} from './sequence-table.js';
