/**
 * A storage file layer (src/storage/file-io.ts's FileLayer) over the real files that knows, per file, which bytes a
 * completed fsync covered, and so can say what a power loss at any moment would leave on disk.
 *
 * Model, after Linux's: a write lands in the page cache (reads see it at once) and reaches the disk only when an
 * fsync of that file that started after it completes. A failed fsync loses the writes it covered for good: the
 * kernel may mark those pages clean, and a later fsync that succeeds does not bring them back (what PostgreSQL
 * learnt in 2018). Truncates are ordered with the writes. Directory entries (create, rename, unlink) are taken as
 * durable at once: the storage fsyncs the directory right after each of them, and modelling the entries too is left
 * for later. A file opened for writing for the first time by this layer counts as durable as found.
 *
 * `image(dir, variant)` writes what the disk would hold after a power loss now into `dir`: every file under the
 * watched root with only its fsynced bytes ('drop'), or with a random prefix of its unsynced operations on top
 * ('prefix'), or with all of them but the last write cut short ('torn'). The layer can also fail fsyncs on demand
 * (`failFsyncs`) and call a hook before the n-th mutating operation (`onOperation`), which is where the crash tests
 * take their images.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FileLayer } from '../../src/storage/file-io.js';
import { nodeFileLayer } from '../../src/storage/file-io.js';

export type CrashVariant = 'drop' | 'prefix' | 'torn';

/** Uniform in [0, 1), e.g. test/helpers/prng.ts's. */
export type Random = () => number;

type Op = { kind: 'write'; position: number; bytes: Buffer } | { kind: 'truncate'; length: number };
type Pending = Op & { seq: number };

function pick(rng: Random, n: number): number {
  return Math.floor(rng() * n);
}

interface Tracked {
  file: string;
  /** The bytes on disk: everything a completed fsync covered. */
  durable: Buffer<ArrayBufferLike>;
  /** Writes and truncates since, in order, not yet covered. */
  pending: Pending[];
}

export class PowerLossFs implements FileLayer {
  /** Mutating operations (write, truncate, fsync, rename, unlink, writeFile) seen so far. */
  operations = 0;
  /** fsyncs that failed because `failFsyncs` said so. */
  failedFsyncs = 0;
  /** Called before each mutating operation with its number (1-based); may take an image. */
  onOperation: ((n: number) => void) | undefined;
  /** Decides per fsync (by file path) whether it fails with EIO; the fsync's writes are then lost. */
  failFsyncs: ((file: string) => boolean) | undefined;
  /**
   * Extra milliseconds before an async fsync reports completion (a slow disk): widens the window in which written
   * but unsynced bytes exist, so crash points and readers land in it. The bytes count as durable only at the end.
   */
  fsyncLatencyMs: (() => number) | undefined;
  private readonly byFile = new Map<string, Tracked>();
  private readonly byFd = new Map<number, Tracked>();
  private seq = 0;

  constructor(
    /** Only files under this directory are tracked and imaged. */
    readonly root: string,
    private readonly real: FileLayer = nodeFileLayer,
  ) {}

  openSync(file: string, flags: string): number {
    const abs = path.resolve(file);
    const watched = abs.startsWith(this.root + path.sep);
    const isDir = watched && fs.existsSync(abs) && fs.statSync(abs).isDirectory();
    const before = watched && !isDir ? this.track(abs) : undefined;
    const fd = this.real.openSync(file, flags);
    if (before) {
      if (flags.startsWith('w')) this.record(before, { kind: 'truncate', length: 0 });
      this.byFd.set(fd, before);
    }
    return fd;
  }

  closeSync(fd: number): void {
    this.byFd.delete(fd);
    this.real.closeSync(fd);
  }

  writeSync(fd: number, buf: NodeJS.ArrayBufferView, off: number, len: number, position: number): number {
    this.tick();
    const n = this.real.writeSync(fd, buf, off, len, position);
    const t = this.byFd.get(fd);
    if (t && n > 0) {
      const view = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
      this.record(t, { kind: 'write', position, bytes: Buffer.from(view.subarray(off, off + n)) });
    }
    return n;
  }

  readSync(fd: number, buf: NodeJS.ArrayBufferView, off: number, len: number, position: number): number {
    return this.real.readSync(fd, buf, off, len, position);
  }

  fsyncSync(fd: number): void {
    this.tick();
    const t = this.byFd.get(fd);
    const upto = this.seq;
    if (t && this.failFsyncs?.(t.file)) {
      this.lose(t, upto);
      throw eio(t.file);
    }
    this.real.fsyncSync(fd);
    if (t) this.cover(t, upto);
  }

  fsync(fd: number, callback: (err: NodeJS.ErrnoException | null) => void): void {
    this.tick();
    const t = this.byFd.get(fd);
    const upto = this.seq;
    const fail = t !== undefined && this.failFsyncs?.(t.file) === true;
    this.real.fsync(fd, (err) => {
      const finish = (): void => {
        if (t && (err || fail)) this.lose(t, upto);
        else if (t) this.cover(t, upto);
        callback(err ?? (fail ? eio(t.file) : null));
      };
      const latency = t ? (this.fsyncLatencyMs?.() ?? 0) : 0;
      if (latency > 0) setTimeout(finish, latency);
      else finish();
    });
  }

  ftruncateSync(fd: number, len: number): void {
    this.tick();
    this.real.ftruncateSync(fd, len);
    const t = this.byFd.get(fd);
    if (t) this.record(t, { kind: 'truncate', length: len });
  }

  fstatSync(fd: number): fs.Stats {
    return this.real.fstatSync(fd);
  }

  writeFileSync(file: string, data: string | NodeJS.ArrayBufferView): void {
    this.tick();
    const abs = path.resolve(file);
    const t = abs.startsWith(this.root + path.sep) ? this.track(abs) : undefined;
    this.real.writeFileSync(file, data);
    if (t) {
      const bytes =
        typeof data === 'string' ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      this.record(t, { kind: 'truncate', length: 0 });
      this.record(t, { kind: 'write', position: 0, bytes: Buffer.from(bytes) });
    }
  }

  renameSync(from: string, to: string): void {
    this.tick();
    const src = path.resolve(from);
    const dst = path.resolve(to);
    const t = this.byFile.get(src) ?? (src.startsWith(this.root + path.sep) ? this.track(src) : undefined);
    this.real.renameSync(from, to);
    this.byFile.delete(src);
    if (t) {
      t.file = dst;
      this.byFile.set(dst, t);
    }
  }

  unlinkSync(file: string): void {
    this.tick();
    this.real.unlinkSync(file);
    this.byFile.delete(path.resolve(file));
  }

  rmSync(file: string, options?: fs.RmOptions): void {
    this.tick();
    this.real.rmSync(file, options);
    const abs = path.resolve(file);
    for (const name of [...this.byFile.keys()])
      if (name === abs || name.startsWith(abs + path.sep)) this.byFile.delete(name);
  }

  /**
   * Writes into `dir` (which must not exist yet) the files under `root` as a power loss now would leave them. Files
   * this layer never saw are copied as they are (the storage wrote them another way, or before it was installed).
   */
  image(dir: string, variant: CrashVariant, rng: Random): void {
    if (path.resolve(dir).startsWith(this.root + path.sep))
      throw new Error(`the image ${dir} must lie outside ${this.root}`);
    copyTree(this.root, dir, (abs) => {
      const t = this.byFile.get(abs);
      return t ? this.survivor(t, variant, rng) : fs.readFileSync(abs);
    });
  }

  private survivor(t: Tracked, variant: CrashVariant, rng: Random): Buffer {
    let content: Buffer<ArrayBufferLike> = Buffer.from(t.durable);
    if (variant === 'drop' || t.pending.length === 0) return content;
    const keep = variant === 'prefix' ? pick(rng, t.pending.length + 1) : t.pending.length;
    for (let i = 0; i < keep; i++) {
      const op = t.pending[i]!;
      const torn = variant === 'torn' && i === keep - 1 && op.kind === 'write';
      content = apply(content, torn ? { ...op, bytes: op.bytes.subarray(0, pick(rng, op.bytes.length)) } : op);
    }
    return content;
  }

  private track(abs: string): Tracked {
    let t = this.byFile.get(abs);
    if (!t) {
      t = { file: abs, durable: fs.existsSync(abs) ? fs.readFileSync(abs) : Buffer.alloc(0), pending: [] };
      this.byFile.set(abs, t);
    }
    return t;
  }

  private record(t: Tracked, op: Op): void {
    t.pending.push({ ...op, seq: this.seq++ });
  }

  /** A completed fsync covers every operation recorded before it started. */
  private cover(t: Tracked, upto: number): void {
    while (t.pending.length > 0 && t.pending[0]!.seq < upto) t.durable = apply(t.durable, t.pending.shift()!);
  }

  /** A failed fsync: the operations it would have covered never reach the disk. */
  private lose(t: Tracked, upto: number): void {
    this.failedFsyncs++;
    t.pending = t.pending.filter((op) => op.seq >= upto);
  }

  private tick(): void {
    this.operations++;
    this.onOperation?.(this.operations);
  }
}

function apply(content: Buffer<ArrayBufferLike>, op: Op): Buffer<ArrayBufferLike> {
  if (op.kind === 'truncate') {
    if (op.length <= content.length) return Buffer.from(content.subarray(0, op.length));
    return Buffer.concat([content, Buffer.alloc(op.length - content.length)]);
  }
  const end = op.position + op.bytes.length;
  const out =
    end > content.length ? Buffer.concat([content, Buffer.alloc(end - content.length)]) : Buffer.from(content);
  op.bytes.copy(out, op.position);
  return out;
}

function eio(file: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EIO: i/o error, fsync '${path.basename(file)}'`), {
    code: 'EIO',
    errno: -5,
    syscall: 'fsync',
  });
}

function copyTree(from: string, to: string, contentOf: (abs: string) => Buffer): void {
  fs.mkdirSync(to);
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name);
    const dst = path.join(to, entry.name);
    if (entry.isDirectory()) copyTree(src, dst, contentOf);
    else if (entry.isFile() && entry.name !== '.lock') fs.writeFileSync(dst, contentOf(src));
  }
}
