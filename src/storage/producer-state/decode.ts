/**
 * One `__producer_state` record as a StateEntry, with the findings its bytes alone reveal: an unknown tag, a key
 * without its tag's layout, a value whose size fits none of the layouts (identity 10, allocator 8, memo 16, 18 or
 * 26 + 12·count), a v3 tail that is not whole. The codec reads values the way replay does (trailing bytes
 * ignored); the exact sizes are checked here.
 */
import { windowTailSize } from '../producer-state-window.js';
import {
  type IgnoredTail,
  MAX_MEMO_ACKS,
  type SequenceMemo,
  decodeProducerStateKey,
  decodeProducerStateRecord,
  isNoAckMemo,
} from '../producer-state-codec.js';
import type { RawStateRecord } from './scan.js';
import type { MemoView, StateEntry, StateFinding } from './types.js';

function memoView(m: SequenceMemo): MemoView {
  const view: MemoView = {
    version: m.version,
    lastSeq: m.lastSeq,
    lastOffset: m.lastOffset,
    lastPartition: m.lastPartition,
    epoch: m.epoch,
  };
  if (m.batch) {
    view.baseSeq = m.batch.baseSeq;
    view.acks = m.batch.acks;
  }
  if (isNoAckMemo(m)) view.noAck = true;
  return view;
}

/** The exact size a memo of this shape should have, or why the size fits none. */
function memoSizeProblem(m: SequenceMemo, bytes: number): string | undefined {
  if (m.version === 1) return bytes === 16 ? undefined : `memo value of ${bytes} bytes: v1 is 16, v2 18`;
  if (m.version === 2)
    return m.ignoredTail ? undefined : bytes === 18 ? undefined : `memo value of ${bytes} bytes: v2 is 18`;
  // A crater window tail (producer-state-window.ts) follows the v3 part when the producer used the window.
  const want = 26 + 12 * (m.batch?.acks.length ?? 0) + windowTailSize(m.window);
  return bytes === want ? undefined : `v3 memo of ${m.batch?.acks.length} acks is ${want} bytes, found ${bytes}`;
}

export function decodeStateRecord(raw: RawStateRecord, findings: StateFinding[]): StateEntry {
  const entry: StateEntry = {
    kind: 'undecodable',
    file: raw.file,
    partition: raw.partition,
    offset: raw.offset,
    position: raw.position,
    timestamp: raw.timestamp,
    key: raw.key.toString('hex'),
    tombstone: raw.value.length === 0,
    valueBytes: raw.value.length,
  };
  const finding: Report = (kind, message) => {
    findings.push({ kind, file: raw.file, offset: raw.offset, position: raw.position, message });
  };
  const key = decodeProducerStateKey(raw.key);
  if (!key.ok) {
    problem(entry, finding, key.problem === 'bad-key' ? 'bad-key' : 'unknown-tag', key.detail);
    return entry;
  }
  entry.kind = key.value.kind;
  if (key.value.kind === 'identity') entry.producerName = key.value.producerName;
  if (key.value.kind === 'memo') {
    entry.producerId = key.value.producerId;
    entry.topic = key.value.topic;
  }
  if (entry.tombstone) return entry;
  const decoded = decodeProducerStateRecord(raw.key, raw.value);
  if (!decoded.ok) {
    problem(entry, finding, 'wrong-length', decoded.detail);
    return entry;
  }
  const v = decoded.value;
  if (v.kind === 'identity' && v.value) {
    entry.producerId = v.value.producerId;
    entry.epoch = v.value.epoch;
    if (raw.value.length !== 10)
      problem(entry, finding, 'wrong-length', `identity value of ${raw.value.length} bytes, expected 10`);
  } else if (v.kind === 'allocator' && v.value !== undefined) {
    entry.nextPid = v.value;
    if (raw.value.length !== 8)
      problem(entry, finding, 'wrong-length', `allocator value of ${raw.value.length} bytes, expected 8`);
  } else if (v.kind === 'memo' && v.value) {
    describeMemo(entry, v.value, raw.value.length, raw.valuePosition, finding);
  }
  return entry;
}

type Report = (kind: StateFinding['kind'], message: string) => void;

/** Sets the entry's problem and reports it as a finding of `kind`. */
function problem(entry: StateEntry, finding: Report, kind: StateFinding['kind'], message: string): void {
  entry.problem = message;
  finding(kind, message);
}

/** A memo value: its view, and what its size or its batch says is wrong with it. */
function describeMemo(
  entry: StateEntry,
  m: SequenceMemo,
  valueBytes: number,
  valueAt: number | undefined,
  finding: Report,
): void {
  entry.memo = memoView(m);
  entry.epoch = m.epoch;
  if (m.ignoredTail) {
    const t = m.ignoredTail;
    problem(entry, finding, t.part === 'v3' ? 'bad-v3-tail' : 'bad-window-tail', ignoredTailMessage(t, valueAt));
  } else {
    const size = memoSizeProblem(m, valueBytes);
    if (size) problem(entry, finding, 'wrong-length', size);
  }
  if (m.batch) checkBatchMemo(m, finding);
}

/**
 * Which part of the value is not whole, where (value byte, and file byte when the value is stored uncompressed at
 * `valueAt`), what was expected, and what the broker makes of the memo then.
 */
export function ignoredTailMessage(t: IgnoredTail, valueAt: number | undefined): string {
  const file = valueAt === undefined ? '' : `, file byte ${valueAt + t.at}`;
  const where = `${t.part} tail (${t.bytes} bytes from value byte ${t.at}${file})`;
  const effect =
    t.part === 'v3'
      ? 'the memo is used as v2: last_seq only, the batch acks are not replayed'
      : "the v3 memo is used without its window: resends of the window's older batches are not deduplicated";
  return `${where} is not whole: ${t.problem}; ${effect}`;
}

function checkBatchMemo(m: SequenceMemo, finding: (kind: 'memo-inconsistent', message: string) => void): void {
  const acks = m.batch!.acks;
  const expectLast = (m.batch!.baseSeq + acks.length - 1) % 0x1_0000_0000;
  if (acks.length > MAX_MEMO_ACKS)
    finding('memo-inconsistent', `v3 memo with ${acks.length} acks, at most ${MAX_MEMO_ACKS}`);
  if (m.lastSeq !== expectLast) {
    finding('memo-inconsistent', `last_seq ${m.lastSeq} but the batch covers ${m.batch!.baseSeq}..${expectLast}`);
  }
  const last = acks[acks.length - 1]!;
  if (last.partition !== m.lastPartition || last.offset !== m.lastOffset) {
    finding(
      'memo-inconsistent',
      `last ack ${last.partition}@${last.offset} differs from last_partition/last_offset ${m.lastPartition}@${m.lastOffset}`,
    );
  }
}
