/**
 * The sequence checks of semantics.md §5 as explicit tables: one for single records (PRODUCE_IDEMPOTENT), one for
 * batches (idempotent PRODUCE_BATCH). Each row names the case it covers; the first matching row decides. The
 * tables only classify: appending, memoizing and replying are the caller's.
 *
 * Sequences are u32 and per (pid, topic); a (pid, topic) with no state in the caller's epoch starts from an implicit
 * last_seq of −1, so its first sequence is 0.
 */
import type { MemoAck } from '../../storage/producer-state-codec.js';

/** What the broker remembers per (pid, topic) within one epoch. */
export interface SequenceState {
  /** −1 before the first record. */
  lastSeq: number;
  /** The epoch this state was written in (undefined for a legacy v1 memo, which no epoch can claim). */
  epoch: number | undefined;
  /** The ack of the record with lastSeq (what a duplicate single produce replays). */
  lastAck: MemoAck | undefined;
  /** The memoized batch (v3): replayed for an exact duplicate. */
  batch: { baseSeq: number; acks: readonly MemoAck[] } | undefined;
  /**
   * The batches before `batch`, newest first (at most WINDOW_BATCHES − 1), kept only while the producer sends with
   * BATCH_FLAG_WINDOW (a crater extension, docs/extensions.md): a duplicate of any of them is replayed too.
   */
  window?: readonly WindowedBatch[] | undefined;
  /** Settles when the write that produced this state is durable (or failed to be); a replay waits for it. */
  durable?: Promise<void> | undefined;
  /**
   * Set when this write, or a later one of the same session, failed to become durable (data fsync or memo): the
   * session is over, and every request of it is refused until the producer starts a new one (replay-check.ts).
   */
  failed?: boolean | undefined;
}

/** An older batch of the window, with the settling of the write that memoized it (a replay waits for it). */
export interface WindowedBatch {
  baseSeq: number;
  acks: readonly MemoAck[];
  durable?: Promise<void> | undefined;
}

/** Batches a windowed (pid, topic) remembers, the last one included: the client's in-flight limit per topic. */
export const WINDOW_BATCHES = 5;

export type SequenceOutcome = 'append' | 'replay' | 'replay-window' | 'out-of-order' | 'session-failed';

export interface SingleRequest {
  seq: number;
}

export interface BatchRequest {
  baseSeq: number;
  count: number;
  /** BATCH_FLAG_WINDOW: the older batches of the window count as duplicates too. */
  windowed?: boolean | undefined;
}

interface Rule<R> {
  readonly when: string;
  readonly test: (state: SequenceState, request: R) => boolean;
  readonly outcome: SequenceOutcome;
}

const U32 = 0x1_0000_0000;

/** The sequence after `seq`, wrapping at 2^32 (−1 → 0). */
export function nextSeq(seq: number): number {
  return (seq + 1) % U32;
}

/** The last sequence of a batch, wrapping at 2^32. */
export function lastSeqOf(baseSeq: number, count: number): number {
  return (baseSeq + count - 1) % U32;
}

const sessionFailedRule = {
  when: 'a write of this session failed to become durable',
  test: (s: SequenceState) => s.failed === true,
  outcome: 'session-failed',
} as const;

export const singleRules: readonly Rule<SingleRequest>[] = [
  sessionFailedRule,
  { when: 'seq = last + 1', test: (s, r) => r.seq === nextSeq(s.lastSeq), outcome: 'append' },
  {
    when: 'seq = last and a memo exists',
    test: (s, r) => s.lastSeq >= 0 && r.seq === s.lastSeq && s.lastAck !== undefined,
    outcome: 'replay',
  },
  { when: 'anything else (gap or regression)', test: () => true, outcome: 'out-of-order' },
];

export const batchRules: readonly Rule<BatchRequest>[] = [
  sessionFailedRule,
  {
    when: 'exact duplicate of the memoized batch (same base, last = base + count − 1); content not compared',
    test: (s, r) =>
      s.batch !== undefined && s.batch.baseSeq === r.baseSeq && s.lastSeq === lastSeqOf(r.baseSeq, r.count),
    outcome: 'replay',
  },
  {
    when: 'windowed: exact duplicate of an older batch of the window',
    test: (s, r) => r.windowed === true && windowedDuplicate(s, r) !== undefined,
    outcome: 'replay-window',
  },
  { when: 'base = last + 1', test: (s, r) => r.baseSeq === nextSeq(s.lastSeq), outcome: 'append' },
  { when: 'anything else (overlap, gap or regression)', test: () => true, outcome: 'out-of-order' },
];

/** The older batch of the window that `request` repeats exactly (same base, same last sequence), if any. */
export function windowedDuplicate(state: SequenceState, request: BatchRequest): WindowedBatch | undefined {
  const last = lastSeqOf(request.baseSeq, request.count);
  return state.window?.find((b) => b.baseSeq === request.baseSeq && lastSeqOf(b.baseSeq, b.acks.length) === last);
}

export const INITIAL_STATE: SequenceState = Object.freeze({
  lastSeq: -1,
  epoch: undefined,
  lastAck: undefined,
  batch: undefined,
});

function classify<R>(
  rules: readonly Rule<R>[],
  state: SequenceState | undefined,
  request: R,
): { outcome: SequenceOutcome; rule: string } {
  const s = state ?? INITIAL_STATE;
  for (const rule of rules) if (rule.test(s, request)) return { outcome: rule.outcome, rule: rule.when };
  throw new Error('sequence table has no catch-all row');
}

export function checkSingle(
  state: SequenceState | undefined,
  request: SingleRequest,
): { outcome: SequenceOutcome; rule: string } {
  return classify(singleRules, state, request);
}

export function checkBatch(
  state: SequenceState | undefined,
  request: BatchRequest,
): { outcome: SequenceOutcome; rule: string } {
  return classify(batchRules, state, request);
}

/** The state after a single record landed. */
export function afterSingle(seq: number, epoch: number, ack: MemoAck): SequenceState {
  return { lastSeq: seq, epoch, lastAck: ack, batch: undefined };
}

/**
 * The state after `acks.length` records of a batch landed (a partial append memoizes its prefix). With `previous`
 * (a windowed request), the previous state's batch and window of the same epoch move into the window.
 */
export function afterBatch(
  baseSeq: number,
  epoch: number,
  acks: readonly MemoAck[],
  previous?: SequenceState,
): SequenceState {
  const state: SequenceState = {
    lastSeq: lastSeqOf(baseSeq, acks.length),
    epoch,
    lastAck: acks[acks.length - 1],
    batch: { baseSeq, acks },
  };
  if (previous) state.window = windowAfter(previous, epoch);
  return state;
}

function windowAfter(previous: SequenceState, epoch: number): WindowedBatch[] | undefined {
  if (previous.epoch !== epoch || !previous.batch) return undefined;
  const newest = { ...previous.batch, durable: previous.durable };
  return [newest, ...(previous.window ?? [])].slice(0, WINDOW_BATCHES - 1);
}
