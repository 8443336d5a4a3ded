import { describe, expect, it } from 'vitest';
import {
  INITIAL_STATE,
  afterBatch,
  afterSingle,
  batchRules,
  checkBatch,
  checkSingle,
  lastSeqOf,
  nextSeq,
  singleRules,
} from '../../../../src/broker/producer-state/sequence-table.js';

const ack = (offset: number) => ({ partition: 1, offset: BigInt(offset) });
const batchOf = (base: number, n: number) =>
  afterBatch(
    base,
    0,
    Array.from({ length: n }, (_, i) => ack(base + i)),
  );

describe('the batch table (seed 000)', () => {
  it.each([
    ['no state, base 0', undefined, 0, 3, 'append'],
    ['no state, base 1', undefined, 1, 1, 'out-of-order'],
    ['after 0..2: exact duplicate', batchOf(0, 3), 0, 3, 'replay'],
    ['after 0..2: same base, fewer records', batchOf(0, 3), 0, 2, 'out-of-order'],
    ['after 0..2: same base, more records', batchOf(0, 3), 0, 4, 'out-of-order'],
    ['after 0..2: base 3', batchOf(0, 3), 3, 5, 'append'],
    ['after 0..2: base 5 (gap)', batchOf(0, 3), 5, 1, 'out-of-order'],
    ['after 0..2: base 1 (overlap)', batchOf(0, 3), 1, 1, 'out-of-order'],
    ['after 0..2: base 2 (overlap past the end)', batchOf(0, 3), 2, 3, 'out-of-order'],
    ['after a single seq 4: batch 4..4 is no batch duplicate', afterSingle(4, 0, ack(4)), 4, 1, 'out-of-order'],
    ['after a single seq 4: base 5', afterSingle(4, 0, ack(4)), 5, 2, 'append'],
  ] as const)('%s → %s', (_name, state, baseSeq, count, outcome) => {
    expect(checkBatch(state, { baseSeq, count }).outcome).toBe(outcome);
  });

  it('a partial batch memoizes its prefix: last = base + applied − 1, and the tail is fresh', () => {
    const partial = afterBatch(10, 0, [ack(1), ack(2), ack(3)]);
    expect(partial.lastSeq).toBe(12);
    expect(partial.lastAck).toEqual(ack(3));
    expect(checkBatch(partial, { baseSeq: 10, count: 7 }).outcome).toBe('out-of-order');
    expect(checkBatch(partial, { baseSeq: 13, count: 4 }).outcome).toBe('append');
  });

  it('every table ends in a catch-all row', () => {
    expect(batchRules.at(-1)!.test(INITIAL_STATE, { baseSeq: 99, count: 1 })).toBe(true);
    expect(singleRules.at(-1)!.test(INITIAL_STATE, { seq: 99 })).toBe(true);
  });
});

describe('the single-record table', () => {
  it.each([
    ['no state, seq 0', undefined, 0, 'append'],
    ['no state, seq 0 is not a replay of last −1', undefined, 1, 'out-of-order'],
    ['after 4: seq 5', afterSingle(4, 0, ack(4)), 5, 'append'],
    ['after 4: seq 4 replays', afterSingle(4, 0, ack(4)), 4, 'replay'],
    ['after 4: seq 3', afterSingle(4, 0, ack(4)), 3, 'out-of-order'],
    ['after 4: seq 6', afterSingle(4, 0, ack(4)), 6, 'out-of-order'],
    ['after batch 0..2: seq 2 replays the batch’s last ack', batchOf(0, 3), 2, 'replay'],
  ] as const)('%s → %s', (_name, state, seq, outcome) => {
    expect(checkSingle(state, { seq }).outcome).toBe(outcome);
  });
});

describe('u32 sequences', () => {
  it('wrap at 2^32', () => {
    expect(nextSeq(-1)).toBe(0);
    expect(nextSeq(0xffff_ffff)).toBe(0);
    expect(lastSeqOf(0xffff_fffe, 3)).toBe(0);
    expect(checkBatch(afterSingle(0xffff_ffff, 0, ack(1)), { baseSeq: 0, count: 1 }).outcome).toBe('append');
  });
});
