/**
 * One segment of the segmented backend (storage.md §8.1): three files named by the segment's base, the global byte
 * offset of its first record, zero-padded to 20 digits:
 *
 *   %020d.log         records back to back (record.ts), position p here is global offset base + p
 *   %020d.timeindex   sparse time index (time-index.ts)
 *   %020d.meta        creation time in seconds as Lua `tostring` prints a float, e.g. "1700000000.123"
 *
 * The log file descriptor stays open for the segment's life; every write is positional at the tracked size, so
 * the OS file pointer never matters.
 */
import { storageFs as fs } from './file-io.js';
import { StorageError } from '../errors.js';
import { luaFloatToString, readFullySync, segmentFile, writeFullySync } from './file-io.js';
import { TimeIndex } from './time-index.js';

export class Segment {
  readonly dir: string;
  readonly base: number;
  readonly logFile: string;
  /** Bytes of whole records in the log file. */
  size: number;
  /** When the segment started, in ms: `.meta`, else the log's mtime, else the time it was opened. */
  readonly createdAtMs: number;
  /** Mean bytes per record seen by the last read here (0 before any): sizes the next read, nothing else. */
  recordBytesHint = 0;
  /**
   * Bytes [0, verifiedEnd) are known whole in this process: this process wrote them (from memory whose CRCs it had
   * just computed) or a read here verified them. Reads skip the payload CRC below it (segment-reader.ts).
   */
  verifiedEnd = 0;
  private readonly fd: number;
  private timeIndex: TimeIndex | undefined;
  private inflightSyncs = 0;
  private idleWaiters: Array<() => void> = [];
  private closed = false;

  private constructor(dir: string, base: number, fd: number, size: number, createdAtMs: number) {
    this.dir = dir;
    this.base = base;
    this.logFile = segmentFile(dir, base, '.log');
    this.fd = fd;
    this.size = size;
    this.createdAtMs = createdAtMs;
  }

  /** Creates the three files of a new, empty segment. The caller fsyncs the directory. */
  static create(dir: string, base: number, nowMs: number): Segment {
    const fd = fs.openSync(segmentFile(dir, base, '.log'), 'w+');
    const seg = new Segment(dir, base, fd, 0, nowMs);
    seg.timeIndex = TimeIndex.create(segmentFile(dir, base, '.timeindex'));
    fs.writeFileSync(segmentFile(dir, base, '.meta'), luaFloatToString(nowMs / 1000));
    return seg;
  }

  /** Opens an existing segment's log; `loadTimeIndex` must follow once recovery has settled the log's size. */
  static open(dir: string, base: number, nowMs: number): Segment {
    const logFile = segmentFile(dir, base, '.log');
    const fd = fs.openSync(logFile, 'r+');
    const st = fs.fstatSync(fd);
    if (!st.isFile()) {
      fs.closeSync(fd);
      throw new StorageError(`${logFile} is not a regular file`);
    }
    return new Segment(dir, base, fd, st.size, readCreatedAtMs(dir, base, st.mtimeMs, nowMs));
  }

  loadTimeIndex(): void {
    this.timeIndex = TimeIndex.load(segmentFile(this.dir, this.base, '.timeindex'), this.size);
  }

  get index(): TimeIndex {
    if (!this.timeIndex) throw new StorageError(`${this.logFile}: time index not loaded`);
    return this.timeIndex;
  }

  get end(): number {
    return this.base + this.size;
  }

  /** The file's size on disk, which differs from `size` only after a torn or foreign write. */
  physicalSize(): number {
    return fs.fstatSync(this.fd).size;
  }

  /** Appends `buf[off, off+len)` at the tracked end. On a failure `size` still counts only what is known whole. */
  write(buf: Uint8Array, off: number, len: number): void {
    writeFullySync(this.fd, buf, off, len, this.size);
    if (this.verifiedEnd === this.size) this.verifiedEnd += len;
    this.size += len;
  }

  /** Reads up to `len` bytes at segment position `pos` into `buf[off..]`; returns the bytes read. */
  read(buf: Uint8Array, off: number, len: number, pos: number): number {
    return readFullySync(this.fd, buf, off, len, pos);
  }

  truncate(size: number): void {
    fs.ftruncateSync(this.fd, size);
    this.size = size;
    if (this.verifiedEnd > size) this.verifiedEnd = size;
  }

  /**
   * fsync of the log file only, as MoonMQ's request_sync does; the time index is fsynced at roll and close. One
   * promise per call, settled from the threadpool's callback (a produce over 64 partitions makes 64 of these).
   */
  syncLog(): Promise<void> {
    this.inflightSyncs++;
    return new Promise((resolve, reject) => {
      const done = (err: Error | null): void => {
        if (--this.inflightSyncs === 0 && this.idleWaiters.length > 0) {
          const waiters = this.idleWaiters;
          this.idleWaiters = [];
          for (const w of waiters) w();
        }
        if (err) reject(err);
        else resolve();
      };
      try {
        fs.fsync(this.fd, done);
      } catch (err) {
        done(err as Error);
      }
    });
  }

  /** Synchronous fsync of log and time index, for a roll and for close. */
  syncAllSync(): void {
    this.timeIndex?.syncSync();
    fs.fsyncSync(this.fd);
  }

  /** Closes the descriptors once no fsync is running on them (a descriptor must not be reused under an fsync). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.inflightSyncs > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    this.timeIndex?.close();
    fs.closeSync(this.fd);
  }

  /** Deletes the segment's files (an open descriptor keeps working until `close`). */
  unlinkFiles(): void {
    for (const ext of ['.log', '.timeindex', '.meta']) {
      try {
        fs.unlinkSync(segmentFile(this.dir, this.base, ext));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
  }
}

function readCreatedAtMs(dir: string, base: number, mtimeMs: number, nowMs: number): number {
  try {
    const text = fs.readFileSync(segmentFile(dir, base, '.meta'), 'utf8').trim();
    const seconds = Number(text);
    if (text !== '' && Number.isFinite(seconds)) return seconds * 1000;
  } catch {
    // A missing or unreadable .meta falls back to the log's mtime, as MoonMQ does.
  }
  return Number.isFinite(mtimeMs) && mtimeMs > 0 ? mtimeMs : nowMs;
}
