/**
 * Walks the records of one segment file with bounded reads: fixed chunks (1 MiB by default), or a single read sized
 * to one record when a record is larger than a chunk. A length prefix is checked against the bytes left in the file
 * before anything is read for it, so a prefix claiming terabytes never allocates.
 *
 * Shared by commit-log recovery (which stops at the first problem) and the read-only inspector (which keeps going
 * past a CRC failure, since the length prefix still frames the next record).
 */
import fs from 'node:fs';
import { LENGTH_PREFIX_BYTES, MIN_RECORD_BODY, type RecordProblem, type StoredRecord, readRecord } from './record.js';

export const DEFAULT_SCAN_CHUNK = 1_048_576;

export type ScanItem =
  | { ok: true; position: number; record: StoredRecord; bytes: Buffer }
  | {
      ok: false;
      position: number;
      problem: RecordProblem;
      detail: string;
      /** The length prefix as read (absent when fewer than 8 bytes were left). */
      claimedLength: bigint | undefined;
      /** The record's bytes when the length prefix frames them inside the file (a CRC or layout failure). */
      bytes: Buffer | undefined;
    };

class ChunkReader {
  private buf = Buffer.alloc(0);
  private bufStart = 0;

  constructor(
    private readonly fd: number,
    private readonly fileSize: number,
    private readonly chunkBytes: number,
  ) {}

  /** Makes [pos, pos + n) buffered, clipped at the end of the file; returns the buffer and pos's index in it. */
  ensure(pos: number, n: number): { buf: Buffer; at: number; end: number } {
    const want = Math.min(n, this.fileSize - pos);
    if (pos < this.bufStart || pos + want > this.bufStart + this.buf.length) {
      // A fresh buffer per refill: records handed out earlier keep views into the old one.
      const size = Math.min(Math.max(this.chunkBytes, want), this.fileSize - pos);
      const buf = Buffer.allocUnsafe(size);
      let got = 0;
      while (got < size) {
        const r = fs.readSync(this.fd, buf, got, size - got, pos + got);
        if (r === 0) break;
        got += r;
      }
      this.buf = got === size ? buf : buf.subarray(0, got);
      this.bufStart = pos;
    }
    const at = pos - this.bufStart;
    return { buf: this.buf, at, end: Math.min(this.buf.length, at + want) };
  }
}

/**
 * Yields every record from `start` to `fileSize`. After a problem that leaves the next record's position unknown
 * (a short or impossible length prefix) the scan ends; after a framed problem it continues unless the caller stops.
 */
export function* scanRecords(
  fd: number,
  fileSize: number,
  start = 0,
  chunkBytes = DEFAULT_SCAN_CHUNK,
): Generator<ScanItem, void, undefined> {
  const reader = new ChunkReader(fd, fileSize, chunkBytes);
  let pos = start;
  while (pos < fileSize) {
    const left = fileSize - pos;
    if (left < LENGTH_PREFIX_BYTES) {
      yield {
        ok: false,
        position: pos,
        problem: 'short-length-prefix',
        detail: `${left} bytes where an 8-byte length belongs`,
        claimedLength: undefined,
        bytes: undefined,
      };
      return;
    }
    const head = reader.ensure(pos, LENGTH_PREFIX_BYTES);
    const len = head.buf.readBigUInt64BE(head.at);
    if (len < BigInt(MIN_RECORD_BODY) || len > BigInt(left - LENGTH_PREFIX_BYTES)) {
      const short = len >= BigInt(MIN_RECORD_BODY);
      yield {
        ok: false,
        position: pos,
        problem: short ? 'short-body' : 'impossible-length',
        detail: short
          ? `length ${len} runs past the end of the file (${left - LENGTH_PREFIX_BYTES} bytes left)`
          : `length ${len} is below the minimum of ${MIN_RECORD_BODY}`,
        claimedLength: len,
        bytes: undefined,
      };
      return;
    }
    const size = LENGTH_PREFIX_BYTES + Number(len);
    const { buf, at } = reader.ensure(pos, size);
    const result = readRecord(buf, at, at + size);
    if (result.ok) {
      yield { ok: true, position: pos, record: result.record, bytes: buf.subarray(at, at + size) };
    } else {
      yield {
        ok: false,
        position: pos,
        problem: result.problem,
        detail: result.detail,
        claimedLength: len,
        bytes: buf.subarray(at, at + size),
      };
    }
    pos += size;
  }
}

/** Opens `file` read-only, runs `fn` with the descriptor and its size, and always closes it. */
export function withReadOnlyFile<T>(file: string, fn: (fd: number, size: number) => T): T {
  const fd = fs.openSync(file, 'r');
  try {
    return fn(fd, fs.fstatSync(fd).size);
  } finally {
    fs.closeSync(fd);
  }
}
