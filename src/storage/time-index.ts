/**
 * A segment's sparse time index, `%020d.timeindex` (storage.md §8.1): 12-byte big-endian entries
 *
 *   u64 timestamp_ms · u32 byte position within the segment        e.g. 0000018bcfe56800 00001000
 *
 * The first record of a segment is always indexed; after that a record is indexed only when it starts ≥ 4,096
 * bytes past the last indexed one and its timestamp is not below the last indexed timestamp, so the entries are
 * monotonic in both fields and a binary search is valid. Entries are mirrored in memory as plain numbers
 * (millisecond timestamps stay far below 2^53) so the append path builds no bigints.
 */
import { storageFs as fs } from './file-io.js';
import { writeFullySync } from './file-io.js';

export const TIME_INDEX_ENTRY_BYTES = 12;
export const TIME_INDEX_INTERVAL_BYTES = 4096;
/** Entries the append path queues before it writes them in one write (see `flushSome`). */
export const TIME_INDEX_WRITE_BATCH = 16;

/** The entry at `buf[p, p + 12)`: u64 timestamp (ms), u32 position in the segment; the caller checks the range. */
export function timeIndexEntryAt(buf: Buffer, p: number): { timestamp: bigint; position: number } {
  return { timestamp: buf.readBigUInt64BE(p), position: buf.readUInt32BE(p + 8) };
}

export class TimeIndex {
  readonly file: string;
  private fd: number;
  private readonly timestamps: number[] = [];
  private readonly positions: number[] = [];
  /** Entries chosen by `consider` and not yet written. */
  private pending: Buffer = Buffer.allocUnsafe(TIME_INDEX_ENTRY_BYTES * 2 * TIME_INDEX_WRITE_BATCH);
  private pendingCount = 0;

  private constructor(file: string, fd: number) {
    this.file = file;
    this.fd = fd;
  }

  static create(file: string): TimeIndex {
    return new TimeIndex(file, fs.openSync(file, 'w+'));
  }

  /**
   * Opens an existing index (or an empty one when the file is missing), keeping only whole entries whose position
   * is below `logSize` and which keep the index monotonic; anything else is cut off the file, which is fsynced.
   */
  static load(file: string, logSize: number): TimeIndex {
    const fd = fs.openSync(file, fs.existsSync(file) ? 'r+' : 'w+');
    const idx = new TimeIndex(file, fd);
    const physical = fs.fstatSync(fd).size;
    const whole = physical - (physical % TIME_INDEX_ENTRY_BYTES);
    const buf = Buffer.allocUnsafe(whole);
    const got = whole > 0 ? fs.readSync(fd, buf, 0, whole, 0) : 0;
    let keep = 0;
    for (let p = 0; p + TIME_INDEX_ENTRY_BYTES <= got; p += TIME_INDEX_ENTRY_BYTES) {
      const entry = timeIndexEntryAt(buf, p);
      const ts = Number(entry.timestamp);
      const pos = entry.position;
      const n = idx.positions.length;
      if (pos >= logSize) break;
      if (n > 0 && (pos <= idx.positions[n - 1]! || ts < idx.timestamps[n - 1]!)) break;
      idx.timestamps.push(ts);
      idx.positions.push(pos);
      keep = p + TIME_INDEX_ENTRY_BYTES;
    }
    if (keep !== physical) {
      fs.ftruncateSync(fd, keep);
      fs.fsyncSync(fd);
    }
    return idx;
  }

  get entryCount(): number {
    return this.positions.length + this.pendingCount;
  }

  /** Decides whether the record at `position` (within the segment) is indexed, and queues the entry if so. */
  consider(timestampMs: number, position: number): void {
    const n = this.positions.length;
    if (n > 0) {
      if (position - this.positions[n - 1]! < TIME_INDEX_INTERVAL_BYTES) return;
      if (timestampMs < this.timestamps[n - 1]!) return;
    }
    this.timestamps.push(timestampMs);
    this.positions.push(position);
    const at = this.pendingCount * TIME_INDEX_ENTRY_BYTES;
    if (at + TIME_INDEX_ENTRY_BYTES > this.pending.length) {
      const bigger = Buffer.allocUnsafe(this.pending.length * 2);
      this.pending.copy(bigger, 0, 0, at);
      this.pending = bigger;
    }
    this.pending.writeBigUInt64BE(BigInt(timestampMs), at);
    this.pending.writeUInt32BE(position, at + 8);
    this.pendingCount++;
  }

  /**
   * The append path's flush: the segment's first entry is written at once (retention and timestamp lookups read
   * it), later ones TIME_INDEX_WRITE_BATCH at a time, so most appends cost no index write. The index is fsynced only
   * at roll and close (storage.md §8.1), so a reader must already live with a missing tail after a crash; a
   * SIGKILL now loses at most TIME_INDEX_WRITE_BATCH − 1 sparse entries, and a lookup then scans from the last
   * written one (at most that many × 4 KiB further). Roll and close write everything (`syncSync`, `close`).
   */
  flushSome(): void {
    const pending = this.pendingCount;
    if (pending >= TIME_INDEX_WRITE_BATCH || (pending > 0 && pending === this.positions.length)) this.flush();
  }

  /** Writes the queued entries in one write. */
  flush(): void {
    if (this.pendingCount === 0) return;
    const len = this.pendingCount * TIME_INDEX_ENTRY_BYTES;
    const firstQueued = this.positions.length - this.pendingCount;
    this.pendingCount = 0;
    writeFullySync(this.fd, this.pending, 0, len, firstQueued * TIME_INDEX_ENTRY_BYTES);
  }

  /** Drops queued entries that were never written (their records did not make it to disk either). */
  discardPendingFrom(position: number): void {
    while (this.pendingCount > 0 && this.positions[this.positions.length - 1]! >= position) {
      this.positions.pop();
      this.timestamps.pop();
      this.pendingCount--;
    }
  }

  /** Drops every entry, written or queued, at or past `position` (the log is being cut back to it). */
  truncateFrom(position: number): void {
    const written = this.positions.length - this.pendingCount;
    let n = this.positions.length;
    while (n > 0 && this.positions[n - 1]! >= position) n--;
    this.positions.length = n;
    this.timestamps.length = n;
    if (n >= written) {
      this.pendingCount = n - written;
      return;
    }
    this.pendingCount = 0;
    fs.ftruncateSync(this.fd, n * TIME_INDEX_ENTRY_BYTES);
  }

  /**
   * The position to start scanning from for the first record with timestamp ≥ `timestampMs`: the last entry whose
   * timestamp is strictly below it (0 when none is).
   */
  scanStartFor(timestampMs: number): number {
    let lo = 0;
    let hi = this.timestamps.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.timestamps[mid]! < timestampMs) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? 0 : this.positions[lo - 1]!;
  }

  /** The timestamp of the segment's first record when it is indexed (it always is unless recovery cut it). */
  firstTimestamp(): number | undefined {
    return this.positions[0] === 0 ? this.timestamps[0] : undefined;
  }

  entries(): Array<{ timestamp: bigint; position: number }> {
    return this.positions.map((position, i) => ({ timestamp: BigInt(this.timestamps[i]!), position }));
  }

  syncSync(): void {
    this.flush();
    fs.fsyncSync(this.fd);
  }

  close(): void {
    this.flush();
    fs.closeSync(this.fd);
  }
}
