/**
 * Which fetched records a consumer may let the group keep as consumed. The broker commits past everything a FETCH
 * returned; a record is only really consumed once whoever reads stdout has read it. Bytes handed to a pipe can sit
 * in the kernel's pipe buffer (64 KiB on Linux unless the reader enlarged it) and are thrown away when the reader
 * exits (`| head -1`), so when stdout closes, every record that ended within the last PIPE_WINDOW_BYTES of output,
 * and every record not written at all, goes back to the group: COMMIT of the record's own offset, the earliest one
 * per partition. The reader may see a few of those again next time (at-least-once); it never misses one.
 */
import type { FetchedRecord } from '../client/index.js';
import { type FetchedRows, offsetAt, partitionAt, topicAt } from './fetched-rows.js';

/** Linux's default pipe capacity: output older than this has certainly left the pipe. */
export const PIPE_WINDOW_BYTES = 64 * 1024;

/** One write: its records and the total bytes written once each of them was. */
interface Write {
  records: FetchedRows;
  endBytes: number[];
}

export class OutputWindow {
  /** The writes still (partly) inside the window, oldest first; `#from` records of the first have left it. */
  #writes: Write[] = [];
  #from = 0;
  #bytes = 0;
  /** Bytes of the last write: a write handed over whole may still sit in the process when the reader goes. */
  #lastWrite = 0;

  constructor(private readonly windowBytes: number = PIPE_WINDOW_BYTES) {}

  /** Records that `record` (of `bytes` bytes) was handed to stdout. */
  wrote(record: FetchedRecord, bytes: number): void {
    this.#bytes += bytes;
    this.#writes.push({ records: [record], endBytes: [this.#bytes] });
    this.#trim();
  }

  /**
   * Records that `records` went to stdout in one write, `bytes[i]` bytes each. Until the next write, every one of
   * them counts as possibly lost (the stream may not have passed all of it to the pipe yet), besides the window.
   */
  wroteAll(records: FetchedRows, bytes: readonly number[]): void {
    const endBytes = new Array<number>(bytes.length);
    let total = this.#bytes;
    for (let i = 0; i < bytes.length; i++) endBytes[i] = total += bytes[i]!;
    this.#lastWrite = total - this.#bytes;
    this.#bytes = total;
    this.#writes.push({ records, endBytes });
    this.#trim();
  }

  /** Drops the records that ended at least the window (plus the last write) before the end of the output. */
  #trim(): void {
    const limit = this.#bytes - (this.windowBytes + this.#lastWrite);
    for (let w = this.#writes[0]; w !== undefined; w = this.#writes[0]) {
      while (this.#from < w.endBytes.length && w.endBytes[this.#from]! <= limit) this.#from++;
      if (this.#from < w.endBytes.length) return;
      this.#writes.shift();
      this.#from = 0;
    }
  }

  /**
   * Topic → partition → the offset to commit so that the records possibly lost in the pipe, and `unwritten`, are
   * read again: the earliest such offset per partition (one map for all: two hand-backs of one partition would
   * overwrite each other).
   */
  handBack(...unwritten: FetchedRows[]): Map<string, Map<number, bigint>> {
    const out = new Map<string, Map<number, bigint>>();
    const add = (rows: FetchedRows, i: number): void => {
      const topic = topicAt(rows, i);
      const partition = partitionAt(rows, i);
      const offset = offsetAt(rows, i);
      const byPartition = out.get(topic) ?? new Map<number, bigint>();
      const at = byPartition.get(partition);
      if (at === undefined || offset < at) byPartition.set(partition, offset);
      out.set(topic, byPartition);
    };
    this.#writes.forEach((w, i) => {
      for (let j = i === 0 ? this.#from : 0; j < w.records.length; j++) add(w.records, j);
    });
    for (const rows of unwritten) for (let i = 0; i < rows.length; i++) add(rows, i);
    return out;
  }
}
