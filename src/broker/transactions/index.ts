/** Transactions (semantics.md §10): the coordinator, its state table, `__transaction_state` and the abort index. */
export {
  TransactionCoordinator,
  DEFAULT_TRANSACTION_TIMEOUT_MS,
  type Transaction,
  type TransactionOptions,
} from './coordinator.js';
export {
  transitions,
  transition,
  recovery,
  isUnresolved,
  type TxnAction,
  type TxnEvent,
  type TxnTransition,
} from './state-table.js';
export { TxnStore, replayTxnState, TRANSACTION_STATE_TOPIC, TRANSACTION_STATE_PARTITIONS } from './txn-store.js';
export { AbortIndex, ABORT_INDEX_FILE, formatAbortIndex, parseAbortIndex, type AbortEntry } from './abort-index.js';
export { writeMarkers, applyOffsets, abortEntries, type WrittenMarker } from './resolution.js';
export type { Decision } from './transaction.js';
