/**
 * The transaction state machine of semantics.md §10 as data. `transitions` answers "what does this request do in
 * this state": the first row whose `from` holds the state and whose `on` is the event decides; no row means
 * ERR 51 INVALID_TXN_STATE. `recovery` says what start-up does with the last persisted state of each transaction.
 *
 * A repeated END_TXN with the decision already taken finishes a prepared transaction or, once complete, simply
 * answers OK (a client whose END_TXN reply was lost, a broker crash included, learns the outcome that way); the
 * opposite decision is ERR 51.
 */
import { TxnState, type TxnStateValue } from '../../storage/txn-state-codec.js';

export type TxnEvent = 'begin' | 'produce' | 'offsets' | 'commit' | 'abort';

/** What the coordinator does when a row matches. */
export type TxnAction =
  | 'start' // a new transaction, state ONGOING
  | 'continue' // stay ONGOING
  | 'prepare' // persist PREPARE_<decision>, write markers, persist COMPLETE_<decision>
  | 'finish' // already prepared with this decision: write markers, persist COMPLETE_<decision>
  | 'done'; // already complete with this decision: nothing to do, answer OK

export interface TxnTransition {
  readonly from: readonly TxnStateValue[];
  readonly on: TxnEvent;
  readonly action: TxnAction;
}

const IDLE = [TxnState.EMPTY, TxnState.COMPLETE_COMMIT, TxnState.COMPLETE_ABORT] as const;

export const transitions: readonly TxnTransition[] = [
  { from: IDLE, on: 'begin', action: 'start' },
  { from: [TxnState.ONGOING], on: 'produce', action: 'continue' },
  { from: [TxnState.ONGOING], on: 'offsets', action: 'continue' },
  { from: [TxnState.ONGOING], on: 'commit', action: 'prepare' },
  { from: [TxnState.ONGOING], on: 'abort', action: 'prepare' },
  { from: [TxnState.PREPARE_COMMIT], on: 'commit', action: 'finish' },
  { from: [TxnState.PREPARE_ABORT], on: 'abort', action: 'finish' },
  { from: [TxnState.COMPLETE_COMMIT], on: 'commit', action: 'done' },
  { from: [TxnState.COMPLETE_ABORT], on: 'abort', action: 'done' },
];

/** The action for `event` in `state`, or undefined (ERR 51). */
export function transition(state: TxnStateValue, event: TxnEvent): TxnAction | undefined {
  for (const row of transitions) if (row.on === event && row.from.includes(state)) return row.action;
  return undefined;
}

/** A transaction is unresolved (holds the LSO of every partition it touched) until it is complete. */
export function isUnresolved(state: TxnStateValue): boolean {
  return state === TxnState.ONGOING || state === TxnState.PREPARE_COMMIT || state === TxnState.PREPARE_ABORT;
}

/** Start-up: the decision for the last persisted state of a transaction (undefined: nothing to do). */
export const recovery: Readonly<Partial<Record<TxnStateValue, 'commit' | 'abort'>>> = {
  [TxnState.ONGOING]: 'abort',
  [TxnState.PREPARE_ABORT]: 'abort',
  [TxnState.PREPARE_COMMIT]: 'commit',
};

/** Why `event` is refused in `state`, for the ERR 51 message. */
export function refusal(state: TxnStateValue, event: TxnEvent): string {
  switch (state) {
    case TxnState.ONGOING:
      return event === 'begin'
        ? 'a transaction is already in progress'
        : `${event} is not allowed while the transaction is ongoing`;
    case TxnState.PREPARE_COMMIT:
      return 'the transaction is preparing to commit: repeat END_TXN with commit to finish it';
    case TxnState.PREPARE_ABORT:
      return 'the transaction is preparing to abort: repeat END_TXN with abort to finish it';
    case TxnState.COMPLETE_COMMIT:
    case TxnState.COMPLETE_ABORT:
    case TxnState.EMPTY:
      return event === 'commit' || event === 'abort'
        ? 'no transaction in progress'
        : `${event} outside a transaction: send BEGIN_TXN first`;
    default:
      return `unknown transaction state ${String(state)}`;
  }
}

/** The decision an END_TXN carries, and the states it leads through. */
export const decisionStates = {
  commit: { prepare: TxnState.PREPARE_COMMIT, complete: TxnState.COMPLETE_COMMIT },
  abort: { prepare: TxnState.PREPARE_ABORT, complete: TxnState.COMPLETE_ABORT },
} as const;
