/**
 * What an append encodes from: `count` records, each sized, timestamped and written on demand, so the segmented log's
 * append loop (rolls, scratch growth, fault limits) serves both the RecordToStore list of the general path and the
 * entry table of a plain PRODUCE_BATCH, whose records go from the request's bytes to the scratch buffer without a
 * record object, a Buffer view or a bigint per record.
 */
import { crc32Copy, crc32Range, dataViewOf } from '../protocol/crc32.js';
import {
  BASE_HEADER_BYTES,
  LENGTH_PREFIX_BYTES,
  RecordAttr,
  type RecordToStore,
  recordSize,
  writeRecord,
} from './record.js';

export interface RecordSource {
  readonly count: number;
  /** Bytes record `i` occupies on disk, length prefix included; throws for a record that cannot be stored. */
  size(i: number): number;
  /** Writes record `i` (of `size(i)` bytes) at `pos` of `buf`; throws for a record that cannot be stored. */
  write(buf: Buffer, pos: number, i: number): void;
  /** Record `i`'s timestamp in ms, for the time index. */
  timestampMs(i: number): number;
}

/** The general path's records as a source. */
export class StoredRecordsSource implements RecordSource {
  constructor(private readonly records: readonly RecordToStore[]) {}

  get count(): number {
    return this.records.length;
  }

  size(i: number): number {
    return recordSize(this.records[i]!);
  }

  write(buf: Buffer, pos: number, i: number): void {
    writeRecord(buf, pos, this.records[i]!);
  }

  timestampMs(i: number): number {
    return Number(this.records[i]!.timestamp);
  }
}

/**
 * Record entries laid out in `src`, four u32 per entry in `table`: key start, key length, value start, value length.
 * A PRODUCE_BATCH's entry table (protocol/messages/produce-batch-table.ts) is one.
 */
export interface EntryTable {
  src: Buffer;
  table: Uint32Array;
}

/** Fixed per record on disk around key and value: length prefix, 13-byte header, two CRCs. */
const ENTRY_OVERHEAD = LENGTH_PREFIX_BYTES + BASE_HEADER_BYTES + 8;
const TWO_32 = 2 ** 32;
/** Codec and control bits: neither a 23-byte header (TRANSACTIONAL) nor a header block (HEADERS). */
const ENTRY_ATTRS = RecordAttr.CODEC_MASK | RecordAttr.CONTROL;

/**
 * Entries `order[from, to)` of a table, stored as plain records (13-byte header, no header block, the value as sent)
 * with one attrs byte and one timestamp for all: the bytes writeRecord writes for the same RecordToStore. The header
 * CRC depends on the key length alone here, so it is computed once per run of equal key lengths.
 */
export class EntryRecordsSource implements RecordSource {
  readonly count: number;
  private readonly tsHigh: number;
  private readonly tsLow: number;
  private lastKeyLen = -1;
  private lastHeaderCrc = 0;
  private readonly srcView: DataView;
  private dst: Buffer | undefined;
  private dstView: DataView | undefined;

  constructor(
    private readonly entries: EntryTable,
    private readonly order: Uint32Array,
    private readonly from: number,
    to: number,
    private readonly attrs: number,
    private readonly timestamp: number,
  ) {
    if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new RangeError(`timestamp ${timestamp} out of range`);
    if ((attrs & ENTRY_ATTRS) !== attrs) throw new RangeError(`attrs ${attrs} need the general record path`);
    this.count = to - from;
    this.srcView = dataViewOf(entries.src);
    this.tsHigh = Math.floor(timestamp / TWO_32);
    this.tsLow = timestamp >>> 0;
  }

  size(i: number): number {
    const e = this.order[this.from + i]! * 4;
    const t = this.entries.table;
    return ENTRY_OVERHEAD + t[e + 1]! + t[e + 3]!;
  }

  timestampMs(): number {
    return this.timestamp;
  }

  write(buf: Buffer, pos: number, i: number): void {
    const e = this.order[this.from + i]! * 4;
    const t = this.entries.table;
    const keyLen = t[e + 1]!;
    const valueLen = t[e + 3]!;
    putU32(buf, pos, 0);
    putU32(buf, pos + 4, ENTRY_OVERHEAD - LENGTH_PREFIX_BYTES + keyLen + valueLen);
    const h = pos + LENGTH_PREFIX_BYTES;
    buf[h] = this.attrs;
    putU32(buf, h + 1, keyLen);
    putU32(buf, h + 5, this.tsHigh);
    putU32(buf, h + 9, this.tsLow);
    if (keyLen !== this.lastKeyLen) {
      this.lastHeaderCrc = crc32Range(buf, h, h + BASE_HEADER_BYTES);
      this.lastKeyLen = keyLen;
    }
    putU32(buf, h + BASE_HEADER_BYTES, this.lastHeaderCrc);
    const p = h + BASE_HEADER_BYTES + 4;
    if (buf !== this.dst) {
      this.dst = buf;
      this.dstView = dataViewOf(buf);
    }
    const src = this.srcView;
    const dst = this.dstView!;
    const keyStart = t[e]!;
    const valueStart = t[e + 2]!;
    let crc = crc32Copy(src, keyStart, keyStart + keyLen, dst, p, 0);
    crc = crc32Copy(src, valueStart, valueStart + valueLen, dst, p + keyLen, crc);
    putU32(buf, p + keyLen + valueLen, crc);
  }
}

function putU32(buf: Buffer, pos: number, v: number): void {
  buf[pos] = v >>> 24;
  buf[pos + 1] = v >>> 16;
  buf[pos + 2] = v >>> 8;
  buf[pos + 3] = v;
}
