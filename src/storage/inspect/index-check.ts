/**
 * Checks the two index files against the records of their .log, as the .log is scanned:
 *
 *   .timeindex (segmented)   12-byte entries: u64 timestamp_ms · u32 position within the segment (storage.md §8.1)
 *   .index (commitlog)        8-byte entries:  u32 offset − base · u32 position (storage.md §8.2)
 *
 * The sparse time index is loaded whole (it is small by construction: one entry per 4 KiB at most), keyed by
 * position. The dense index is as large as the record count, so it is read in chunks in step with the scan.
 */
import fs from 'node:fs';
import { TIME_INDEX_ENTRY_BYTES, timeIndexEntryAt } from '../time-index.js';
import type { Finding, IndexFileReport } from './types.js';

export const DENSE_INDEX_ENTRY_BYTES = 8;
const CHUNK_ENTRIES = 65_536;

function readRange(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = fs.readSync(fd, buf, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

export class TimeIndexCheck {
  readonly report: IndexFileReport;
  /** position → [entry number, timestamp] of the entries not yet matched to a record start. */
  private readonly pending = new Map<number, [number, bigint]>();

  constructor(
    private readonly file: string,
    private readonly findings: Finding[],
  ) {
    const fd = fs.openSync(file, 'r');
    try {
      const bytes = fs.fstatSync(fd).size;
      const entries = Math.floor(bytes / TIME_INDEX_ENTRY_BYTES);
      this.report = { file, bytes, entries };
      if (bytes % TIME_INDEX_ENTRY_BYTES !== 0) {
        findings.push({
          kind: 'timeindex-truncated',
          file,
          position: entries * TIME_INDEX_ENTRY_BYTES,
          message: `${bytes} bytes is not a multiple of ${TIME_INDEX_ENTRY_BYTES}: ${bytes % TIME_INDEX_ENTRY_BYTES} trailing bytes`,
        });
      }
      let prev: { ts: bigint; pos: number } | undefined;
      for (let first = 0; first < entries; first += CHUNK_ENTRIES) {
        const n = Math.min(CHUNK_ENTRIES, entries - first);
        const buf = readRange(fd, first * TIME_INDEX_ENTRY_BYTES, n * TIME_INDEX_ENTRY_BYTES);
        for (let i = 0; i < n; i++) {
          const { timestamp: ts, position: pos } = timeIndexEntryAt(buf, i * TIME_INDEX_ENTRY_BYTES);
          const entry = first + i;
          if (prev && (ts < prev.ts || pos <= prev.pos)) {
            findings.push({
              kind: 'timeindex-backwards',
              file,
              position: entry * TIME_INDEX_ENTRY_BYTES,
              message: `entry ${entry} (timestamp ${ts}, position ${pos}) goes back from (timestamp ${prev.ts}, position ${prev.pos})`,
            });
          }
          prev = { ts, pos };
          this.pending.set(pos, [entry, ts]);
        }
      }
    } finally {
      fs.closeSync(fd);
    }
  }

  /** A record starts at `position` with `timestamp`. */
  visit(position: number, timestamp: bigint): void {
    const hit = this.pending.get(position);
    if (!hit) return;
    this.pending.delete(position);
    const [entry, ts] = hit;
    if (ts !== timestamp) {
      this.findings.push({
        kind: 'timeindex-misaligned',
        file: this.file,
        position: entry * TIME_INDEX_ENTRY_BYTES,
        message: `entry ${entry} gives timestamp ${ts} for the record at ${position}, which has ${timestamp}`,
      });
    }
  }

  /** Entries never matched point inside a record or past the records. */
  finish(): void {
    const left = [...this.pending.entries()].sort((a, b) => a[1][0] - b[1][0]);
    for (const [pos, [entry]] of left) {
      this.findings.push({
        kind: 'timeindex-misaligned',
        file: this.file,
        position: entry * TIME_INDEX_ENTRY_BYTES,
        message: `entry ${entry} points at position ${pos}, which is not the start of a record`,
      });
    }
  }
}

export class DenseIndexCheck {
  readonly report: IndexFileReport;
  private readonly fd: number;
  private chunk: Buffer = Buffer.alloc(0);
  private chunkFirst = 0;
  private reported = false;
  private closed = false;

  constructor(
    private readonly file: string,
    private readonly findings: Finding[],
  ) {
    this.fd = fs.openSync(file, 'r');
    const bytes = fs.fstatSync(this.fd).size;
    this.report = { file, bytes, entries: Math.floor(bytes / DENSE_INDEX_ENTRY_BYTES) };
    if (bytes % DENSE_INDEX_ENTRY_BYTES !== 0) {
      this.mismatch(
        this.report.entries * DENSE_INDEX_ENTRY_BYTES,
        `${bytes} bytes is not a multiple of ${DENSE_INDEX_ENTRY_BYTES}`,
      );
    }
  }

  /** Only the first disagreement is reported: after one, every later entry tends to be off too. */
  private mismatch(position: number, message: string): void {
    if (this.reported) return;
    this.reported = true;
    this.findings.push({ kind: 'index-mismatch', file: this.file, position, message });
  }

  /** Record number `n` (relative offset) starts at `position` in the .log. */
  visit(n: number, position: number): void {
    if (this.reported || n >= this.report.entries) return;
    if (n < this.chunkFirst || n >= this.chunkFirst + this.chunk.length / DENSE_INDEX_ENTRY_BYTES) {
      const count = Math.min(CHUNK_ENTRIES, this.report.entries - n);
      this.chunk = readRange(this.fd, n * DENSE_INDEX_ENTRY_BYTES, count * DENSE_INDEX_ENTRY_BYTES);
      this.chunkFirst = n;
    }
    const at = (n - this.chunkFirst) * DENSE_INDEX_ENTRY_BYTES;
    const rel = this.chunk.readUInt32BE(at);
    const pos = this.chunk.readUInt32BE(at + 4);
    if (rel !== n || pos !== position) {
      this.mismatch(
        n * DENSE_INDEX_ENTRY_BYTES,
        `entry ${n} is (offset ${rel}, position ${pos}); the log has record ${n} at ${position}`,
      );
    }
  }

  finish(records: number): void {
    if (this.report.entries !== records) {
      this.mismatch(
        Math.min(records, this.report.entries) * DENSE_INDEX_ENTRY_BYTES,
        `${this.report.entries} entries for ${records} records in the log`,
      );
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    fs.closeSync(this.fd);
  }
}
