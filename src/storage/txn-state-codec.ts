/**
 * `__transaction_state` records (semantics.md §10). Key = the transaction id (the producer name) bytes;
 * partition = fnv1a32(id) mod 16 + 1. Value, big-endian:
 *
 *   u64 pid · u16 epoch · u8 state
 *   u32 participants · participants × (u16-length topic · u32 partition · u64 first_offset)
 *   u32 pending · pending × (u16-length group · u16-length topic · u32 partition · u64 offset)
 *
 * A zero-length value is a tombstone. Decoders never throw on bad bytes: they read with the strict protocol Reader,
 * and a count the bytes cannot hold, a string past the end or a short value come back as a problem, before anything
 * is allocated from the count.
 */
import type { DecodeFailureKind } from '../errors.js';
import { fnv1a32 } from '../protocol/fnv1a.js';
import type { Reader } from '../protocol/reader.js';
import { namesOf } from '../protocol/table.js';
import { decodeStrict } from './strict-decode.js';

export const TRANSACTION_STATE_TOPIC = '__transaction_state';
export const TRANSACTION_STATE_PARTITIONS = 16;

export const TxnState = {
  EMPTY: 0,
  ONGOING: 1,
  PREPARE_COMMIT: 2,
  PREPARE_ABORT: 3,
  COMPLETE_COMMIT: 4,
  COMPLETE_ABORT: 5,
} as const;
export type TxnStateName = keyof typeof TxnState;
export type TxnStateValue = (typeof TxnState)[TxnStateName];

const stateNames = namesOf(TxnState);

/** `PREPARE_COMMIT` for 2; `UNKNOWN_<n>` for a state byte this table lacks. */
export function txnStateName(state: number): string {
  return stateNames.get(state) ?? `UNKNOWN_${state}`;
}

export interface TxnParticipant {
  topic: string;
  partition: number;
  firstOffset: bigint;
}

export interface TxnPendingOffset {
  group: string;
  topic: string;
  partition: number;
  offset: bigint;
}

export interface TxnStateRecord {
  producerId: bigint;
  epoch: number;
  /** A TxnState value; an unknown byte is passed through for the caller to report. */
  state: number;
  participants: TxnParticipant[];
  pendingOffsets: TxnPendingOffset[];
}

export type TxnStateProblem = 'wrong-length' | 'count-past-end' | 'string-past-end';
export type TxnStateFailure = { ok: false; problem: TxnStateProblem; detail: string };
export type TxnStateResult<T> = { ok: true; value: T } | TxnStateFailure;

export function txnStatePartition(
  transactionId: string | Uint8Array,
  partitions: number = TRANSACTION_STATE_PARTITIONS,
): number {
  const id = typeof transactionId === 'string' ? Buffer.from(transactionId, 'utf8') : transactionId;
  return (fnv1a32(id) % partitions) + 1;
}

export function encodeTxnStateKey(transactionId: string): Buffer {
  return Buffer.from(transactionId, 'utf8');
}

export function encodeTxnStateValue(v: TxnStateRecord): Buffer {
  const parts = v.participants.map((p) => ({ ...p, t: Buffer.from(p.topic, 'utf8') }));
  const pending = v.pendingOffsets.map((o) => ({
    ...o,
    g: Buffer.from(o.group, 'utf8'),
    t: Buffer.from(o.topic, 'utf8'),
  }));
  let size = 11 + 4 + 4;
  for (const p of parts) size += 14 + p.t.length;
  for (const o of pending) size += 16 + o.g.length + o.t.length;
  const b = Buffer.allocUnsafe(size);
  b.writeBigUInt64BE(v.producerId, 0);
  b.writeUInt16BE(v.epoch, 8);
  b[10] = v.state;
  let at = b.writeUInt32BE(parts.length, 11);
  for (const p of parts) {
    at = b.writeUInt16BE(p.t.length, at);
    at += p.t.copy(b, at);
    at = b.writeUInt32BE(p.partition, at);
    at = b.writeBigUInt64BE(p.firstOffset, at);
  }
  at = b.writeUInt32BE(pending.length, at);
  for (const o of pending) {
    at = b.writeUInt16BE(o.g.length, at);
    at += o.g.copy(b, at);
    at = b.writeUInt16BE(o.t.length, at);
    at += o.t.copy(b, at);
    at = b.writeUInt32BE(o.partition, at);
    at = b.writeBigUInt64BE(o.offset, at);
  }
  return b;
}

/** How the strict Reader's failures read in this layout's terms. */
const problems = {
  short: 'wrong-length',
  'string-past-end': 'string-past-end',
  'string-too-long': 'string-past-end',
  'count-past-end': 'count-past-end',
  'count-over-limit': 'count-past-end',
  'trailing-bytes': 'wrong-length',
  invalid: 'wrong-length',
} as const satisfies Record<DecodeFailureKind, TxnStateProblem>;

/** Participants need 2 + 4 + 8 bytes and pending offsets 2 + 2 + 4 + 8 at least: a count is checked against that. */
const MIN_PARTICIPANT_BYTES = 14;
const MIN_PENDING_BYTES = 16;

function readTxnState(r: Reader): TxnStateRecord {
  const producerId = r.u64('pid');
  const epoch = r.u16('epoch');
  const state = r.u8('state');
  const participants = new Array<TxnParticipant>(r.count('participant count', MIN_PARTICIPANT_BYTES));
  for (let i = 0; i < participants.length; i++) {
    participants[i] = { topic: r.str16('topic'), partition: r.u32('partition'), firstOffset: r.u64('first_offset') };
  }
  const pendingOffsets = new Array<TxnPendingOffset>(r.count('pending-offset count', MIN_PENDING_BYTES));
  for (let i = 0; i < pendingOffsets.length; i++) {
    pendingOffsets[i] = {
      group: r.str16('group'),
      topic: r.str16('topic'),
      partition: r.u32('partition'),
      offset: r.u64('offset'),
    };
  }
  return { producerId, epoch, state, participants, pendingOffsets };
}

/** undefined for a tombstone (zero-length value). Bytes after the pending offsets are ignored. */
export function decodeTxnStateValue(value: Uint8Array): TxnStateResult<TxnStateRecord | undefined> {
  if (value.length === 0) return { ok: true, value: undefined };
  return decodeStrict(value, problems, readTxnState);
}
