/**
 * Which fetched records a consumer may let the group keep as consumed. The broker commits past everything a FETCH
 * returned; a record is only really consumed once whoever reads stdout has read it. Bytes handed to a pipe can sit
 * in the kernel's pipe buffer (64 KiB on Linux unless the reader enlarged it) and are thrown away when the reader
 * exits (`| head -1`), so when stdout closes, every record that ended within the last PIPE_WINDOW_BYTES of output,
 * and every record not written at all, goes back to the group: COMMIT of the record's own offset, the earliest one
 * per partition. The reader may see a few of those again next time (at-least-once); it never misses one.
 */
import type { FetchedRecord } from '../client/index.js';

/** Linux's default pipe capacity: output older than this has certainly left the pipe. */
export const PIPE_WINDOW_BYTES = 64 * 1024;

interface Written {
  topic: string;
  partition: number;
  offset: bigint;
  /** Total bytes written once this record was. */
  endByte: number;
}

export class OutputWindow {
  #written: Written[] = [];
  #bytes = 0;
  /** Bytes of the last write: a write handed over whole may still sit in the process when the reader goes. */
  #lastWrite = 0;

  constructor(private readonly windowBytes: number = PIPE_WINDOW_BYTES) {}

  /** Records that `record` (of `bytes` bytes) was handed to stdout. */
  wrote(record: FetchedRecord, bytes: number): void {
    this.#bytes += bytes;
    this.#written.push({
      topic: record.topic,
      partition: record.partition,
      offset: record.offset,
      endByte: this.#bytes,
    });
    while (this.#written.length > 0 && this.#bytes - this.#written[0]!.endByte >= this.windowBytes + this.#lastWrite)
      this.#written.shift();
  }

  /**
   * Records that `records` went to stdout in one write, `bytes[i]` bytes each. Until the next write, every one of
   * them counts as possibly lost (the stream may not have passed all of it to the pipe yet), besides the window.
   */
  wroteAll(records: readonly FetchedRecord[], bytes: readonly number[]): void {
    let total = 0;
    for (const b of bytes) total += b;
    this.#lastWrite = total;
    for (let i = 0; i < records.length; i++) this.wrote(records[i]!, bytes[i]!);
  }

  /**
   * Topic → partition → the offset to commit so that the records possibly lost in the pipe, and `unwritten`, are
   * read again: the earliest such offset per partition.
   */
  handBack(unwritten: readonly FetchedRecord[]): Map<string, Map<number, bigint>> {
    const out = new Map<string, Map<number, bigint>>();
    for (const r of [...this.#written, ...unwritten]) {
      const byPartition = out.get(r.topic) ?? new Map<number, bigint>();
      const at = byPartition.get(r.partition);
      if (at === undefined || r.offset < at) byPartition.set(r.partition, r.offset);
      out.set(r.topic, byPartition);
    }
    return out;
  }
}
