/**
 * `__share_group_state` records (crater share groups; docs/extensions.md): commitlog, compact, 8 MiB segments, 16
 * partitions; partition = fnv1a32(group) mod 16 + 1, so all of one group's records share one partition (and one
 * fsync). Shared by the broker and the offline `crater share state` decoder. Big-endian throughout.
 *
 * Key
 *   u8 kind (0 group config · 1 share-partition) · u16 group_len · group
 *   kind 1 only: u16 topic_len · topic · u32 partition (1-based)
 *
 * Value of a share-partition (kind 1), a full snapshot (version 2, written since the window keeps runs of records):
 *   u8 version (2) · u64 spso · u64 speo
 *   u32 n × (u64 first_offset · u64 last_offset · u32 records · u8 state · u16 delivery_count)
 *   one entry per run of in-flight records that share a state and a delivery count, in offset order; first and
 *   last are the starts of the run's first and last record, records how many records lie between them (offsets
 *   are byte positions, so the count is not last − first + 1). state: 0 Available · 1 Acquired · 2 Acknowledged ·
 *   4 Archived. Acquired is written as held at the time; a replay makes it Available (its lock died with the
 *   broker), keeping the count.
 * Version 1 (still read): u8 1 · u64 spso · u64 speo · u32 n × (u64 offset · u8 state · u16 delivery_count), one
 *   entry per record; it decodes to runs of one record.
 *
 * Value of a group config (kind 0):
 *   u8 version (1) · u32 n × (u16 key_len · key · u16 value_len · value)
 *
 * A zero-length value is a tombstone. Decoders never throw: bad bytes come back as a problem.
 */
import { DecodeError } from '../errors.js';
import { fnv1a32 } from '../protocol/fnv1a.js';
import { Reader } from '../protocol/reader.js';
import { Writer } from '../protocol/writer.js';

export const SHARE_STATE_TOPIC = '__share_group_state';
export const SHARE_STATE_PARTITIONS = 16;
/** The snapshot version written; version 1 snapshots are still read. Group configs are version 1. */
export const SHARE_STATE_VERSION = 2;
const CONFIG_VERSION = 1;

export const ShareStateKind = { CONFIG: 0, PARTITION: 1 } as const;

/** The record states of KIP-932 as stored; values are the wire/disk bytes. */
export const RecordState = { AVAILABLE: 0, ACQUIRED: 1, ACKNOWLEDGED: 2, ARCHIVED: 4 } as const;
export type RecordStateValue = (typeof RecordState)[keyof typeof RecordState];
const stateBytes = new Set<number>(Object.values(RecordState));

export type ShareStateKey =
  | { kind: typeof ShareStateKind.CONFIG; group: string }
  | { kind: typeof ShareStateKind.PARTITION; group: string; topic: string; partition: number };

/** A run of in-flight records with one state and delivery count: `records` records from `first` to `last`. */
export interface StoredRun {
  first: bigint;
  last: bigint;
  records: number;
  state: RecordStateValue;
  deliveryCount: number;
}

export interface SharePartitionSnapshot {
  spso: bigint;
  speo: bigint;
  runs: StoredRun[];
}

export type ShareStateResult<T> = { ok: true; value: T } | { ok: false; detail: string };

export function shareStatePartition(group: string, partitions: number = SHARE_STATE_PARTITIONS): number {
  return (fnv1a32(Buffer.from(group, 'utf8')) % partitions) + 1;
}

/** The partition for an encoded key (the group sits at the same place in both kinds, after the kind byte). */
export function shareStatePartitionOfKey(key: Buffer, partitions: number): number {
  const r = new Reader(key, 1);
  return (fnv1a32(r.bytes(r.u16('group_len'), 'group')) % partitions) + 1;
}

function short(w: Writer, s: string): void {
  const b = Buffer.from(s, 'utf8');
  w.u16(b.length).bytes(b);
}

function readShort(r: Reader, field: string): string {
  return r.bytes(r.u16(`${field}_len`), field).toString('utf8');
}

export function encodeShareStateKey(key: ShareStateKey): Buffer {
  const w = new Writer(64);
  w.u8(key.kind);
  short(w, key.group);
  if (key.kind === ShareStateKind.PARTITION) {
    short(w, key.topic);
    w.u32(key.partition);
  }
  return w.finish();
}

export function decodeShareStateKey(bytes: Buffer): ShareStateResult<ShareStateKey> {
  return attempt(() => {
    const r = new Reader(bytes);
    const kind = r.u8('kind');
    const group = readShort(r, 'group');
    if (kind === ShareStateKind.CONFIG) {
      r.expectEnd('key');
      return { kind, group };
    }
    if (kind !== ShareStateKind.PARTITION) throw new DecodeError('kind', 0, `unknown key kind ${kind}`);
    const topic = readShort(r, 'topic');
    const partition = r.u32('partition');
    r.expectEnd('key');
    return { kind, group, topic, partition };
  });
}

const RUN_BYTES = 23;

/** Written on every share-state flush, so straight into one buffer sized up front. */
export function encodeSnapshot(s: SharePartitionSnapshot): Buffer {
  const buf = Buffer.allocUnsafe(21 + s.runs.length * RUN_BYTES);
  buf[0] = SHARE_STATE_VERSION;
  putU64(buf, s.spso, 1);
  putU64(buf, s.speo, 9);
  buf.writeUInt32BE(s.runs.length, 17);
  let pos = 21;
  for (const x of s.runs) {
    putU64(buf, x.first, pos);
    putU64(buf, x.last, pos + 8);
    buf.writeUInt32BE(x.records, pos + 16);
    buf[pos + 20] = x.state;
    buf.writeUInt16BE(x.deliveryCount, pos + 21);
    pos += RUN_BYTES;
  }
  return buf;
}

/** A Number split is several times cheaper than writeBigUInt64BE; values past 2^53 take the bigint path. */
function putU64(buf: Buffer, v: bigint, pos: number): void {
  const n = Number(v);
  if (n >= 0 && n <= Number.MAX_SAFE_INTEGER) {
    buf.writeUInt32BE(Math.floor(n / 4_294_967_296), pos);
    buf.writeUInt32BE(n >>> 0, pos + 4);
  } else buf.writeBigUInt64BE(v, pos);
}

export function decodeSnapshot(bytes: Buffer): ShareStateResult<SharePartitionSnapshot> {
  return attempt(() => {
    const r = new Reader(bytes);
    const at = r.offset;
    const v = r.u8('version');
    if (v !== 1 && v !== SHARE_STATE_VERSION) throw new DecodeError('version', at, `unknown version ${v}`);
    const spso = r.u64('spso');
    const speo = r.u64('speo');
    const n = r.count('runs.count', v === 1 ? 11 : RUN_BYTES);
    const runs = new Array<StoredRun>(n);
    let prev = -1n;
    for (let i = 0; i < n; i++) {
      const run = v === 1 ? readV1Record(r, i) : readRun(r, i);
      if (run.first <= prev || run.first < spso || run.last >= speo) {
        throw new DecodeError(
          `runs[${i}].first_offset`,
          r.offset,
          `run ${run.first}..${run.last} out of order or outside [spso ${spso}, speo ${speo})`,
        );
      }
      prev = run.last;
      runs[i] = run;
    }
    r.expectEnd('value');
    if (spso > speo) throw new DecodeError('spso', 1, `spso ${spso} is past speo ${speo}`);
    return { spso, speo, runs };
  });
}

function readState(r: Reader, field: string): RecordStateValue {
  const at = r.offset;
  const state = r.u8(field);
  if (!stateBytes.has(state)) throw new DecodeError(field, at, `unknown record state ${state}`);
  return state as RecordStateValue;
}

function readRun(r: Reader, i: number): StoredRun {
  const first = r.u64(`runs[${i}].first_offset`);
  const last = r.u64(`runs[${i}].last_offset`);
  const at = r.offset;
  const records = r.u32(`runs[${i}].records`);
  if (last < first || records < 1 || (first === last) !== (records === 1)) {
    throw new DecodeError(`runs[${i}].records`, at, `run ${first}..${last} cannot hold ${records} record(s)`);
  }
  const state = readState(r, `runs[${i}].state`);
  return { first, last, records, state, deliveryCount: r.u16(`runs[${i}].delivery_count`) };
}

function readV1Record(r: Reader, i: number): StoredRun {
  const offset = r.u64(`records[${i}].offset`);
  const state = readState(r, `records[${i}].state`);
  return { first: offset, last: offset, records: 1, state, deliveryCount: r.u16(`records[${i}].delivery_count`) };
}

export function encodeGroupConfig(entries: ReadonlyArray<readonly [string, string]>): Buffer {
  const w = new Writer(64);
  w.u8(CONFIG_VERSION).u32(entries.length);
  for (const [k, v] of entries) {
    short(w, k);
    short(w, v);
  }
  return w.finish();
}

export function decodeGroupConfig(bytes: Buffer): ShareStateResult<Array<[string, string]>> {
  return attempt(() => {
    const r = new Reader(bytes);
    const v = r.u8('version');
    if (v !== CONFIG_VERSION) throw new DecodeError('version', 0, `unknown version ${v}`);
    const n = r.count('entries.count', 4, 64);
    const out: Array<[string, string]> = [];
    for (let i = 0; i < n; i++) out.push([readShort(r, `entries[${i}].key`), readShort(r, `entries[${i}].value`)]);
    r.expectEnd('value');
    return out;
  });
}

function attempt<T>(fn: () => T): ShareStateResult<T> {
  try {
    return { ok: true, value: fn() };
  } catch (err) {
    if (err instanceof DecodeError) return { ok: false, detail: err.message };
    throw err;
  }
}
