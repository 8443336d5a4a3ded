/** The transaction state table row by row, the recovery decisions and the ERR 51 reasons. */
import { describe, expect, it } from 'vitest';
import {
  isUnresolved,
  recovery,
  refusal,
  transition,
  transitions,
} from '../../../../src/broker/transactions/state-table.js';
import { TxnState } from '../../../../src/storage/txn-state-codec.js';

const { EMPTY, ONGOING, PREPARE_COMMIT, PREPARE_ABORT, COMPLETE_COMMIT, COMPLETE_ABORT } = TxnState;

describe('transition', () => {
  it.each([
    [EMPTY, 'begin', 'start'],
    [COMPLETE_COMMIT, 'begin', 'start'],
    [COMPLETE_ABORT, 'begin', 'start'],
    [ONGOING, 'produce', 'continue'],
    [ONGOING, 'offsets', 'continue'],
    [ONGOING, 'commit', 'prepare'],
    [ONGOING, 'abort', 'prepare'],
    [PREPARE_COMMIT, 'commit', 'finish'],
    [PREPARE_ABORT, 'abort', 'finish'],
    [COMPLETE_COMMIT, 'commit', 'done'],
    [COMPLETE_ABORT, 'abort', 'done'],
  ] as const)('state %i on %s → %s', (state, event, action) => {
    expect(transition(state, event)).toBe(action);
  });

  it.each([
    [ONGOING, 'begin'],
    [PREPARE_COMMIT, 'begin'],
    [PREPARE_COMMIT, 'abort'],
    [PREPARE_ABORT, 'commit'],
    [PREPARE_COMMIT, 'produce'],
    [COMPLETE_COMMIT, 'abort'],
    [COMPLETE_ABORT, 'commit'],
    [EMPTY, 'commit'],
    [EMPTY, 'produce'],
    [EMPTY, 'offsets'],
  ] as const)('refuses %s in state %i (ERR 51)', (state, event) => {
    expect(transition(state, event)).toBeUndefined();
    expect(refusal(state, event)).not.toBe('');
  });

  it('has no two rows for the same state and event', () => {
    const seen = new Set<string>();
    for (const row of transitions) {
      for (const from of row.from) {
        const key = `${from}:${row.on}`;
        expect(seen.has(key)).toBe(false);
        seen.add(key);
      }
    }
  });
});

describe('recovery', () => {
  it('rolls PREPARE_COMMIT forward, aborts ONGOING and PREPARE_ABORT, leaves the rest alone', () => {
    expect(recovery[PREPARE_COMMIT]).toBe('commit');
    expect(recovery[ONGOING]).toBe('abort');
    expect(recovery[PREPARE_ABORT]).toBe('abort');
    for (const s of [EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT]) expect(recovery[s]).toBeUndefined();
  });

  it('counts only ONGOING and PREPARE_* as unresolved (they hold the LSO)', () => {
    expect([EMPTY, ONGOING, PREPARE_COMMIT, PREPARE_ABORT, COMPLETE_COMMIT, COMPLETE_ABORT].map(isUnresolved)).toEqual([
      false,
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  it('tells a producer with a prepared transaction to repeat the same decision', () => {
    expect(refusal(PREPARE_COMMIT, 'abort')).toMatch(/commit to finish/);
    expect(refusal(PREPARE_ABORT, 'commit')).toMatch(/abort to finish/);
    expect(refusal(COMPLETE_ABORT, 'commit')).toBe('no transaction in progress');
  });
});
