/**
 * Small file helpers the storage backends share: segment file names, async fsync on the threadpool, directory
 * fsync, and the temp-file + atomic-rename write every sidecar and checkpoint goes through.
 *
 * It is also the storage's one seam to the file system: every open, write, read, fsync, truncate, rename and unlink
 * of the storage classes goes through `storageFs`, which forwards to the installed `FileLayer` (node:fs unless a
 * test installed another). The power-loss tests install a layer that records which bytes each fsync covered and,
 * at a simulated crash, keeps only those (test/helpers/power-loss-fs.ts); the fsync-failure tests install one whose
 * fsync fails. Read-only and directory calls (readdir, stat, mkdir, readFile) go straight to node:fs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { StorageError } from '../errors.js';

/** The mutating file operations storage performs, in node:fs's own shapes (positional reads and writes only). */
export interface FileLayer {
  openSync(file: string, flags: string): number;
  closeSync(fd: number): void;
  writeSync(fd: number, buf: NodeJS.ArrayBufferView, off: number, len: number, position: number): number;
  readSync(fd: number, buf: NodeJS.ArrayBufferView, off: number, len: number, position: number): number;
  fsyncSync(fd: number): void;
  fsync(fd: number, callback: (err: NodeJS.ErrnoException | null) => void): void;
  ftruncateSync(fd: number, len: number): void;
  fstatSync(fd: number): fs.Stats;
  writeFileSync(file: string, data: string | NodeJS.ArrayBufferView): void;
  renameSync(from: string, to: string): void;
  unlinkSync(file: string): void;
  rmSync(file: string, options?: fs.RmOptions): void;
}

/** node:fs itself. */
export const nodeFileLayer: FileLayer = {
  openSync: (file, flags) => fs.openSync(file, flags),
  closeSync: (fd) => fs.closeSync(fd),
  writeSync: (fd, buf, off, len, position) => fs.writeSync(fd, buf, off, len, position),
  readSync: (fd, buf, off, len, position) => fs.readSync(fd, buf, off, len, position),
  fsyncSync: (fd) => fs.fsyncSync(fd),
  fsync: (fd, callback) => fs.fsync(fd, callback),
  ftruncateSync: (fd, len) => fs.ftruncateSync(fd, len),
  fstatSync: (fd) => fs.fstatSync(fd),
  writeFileSync: (file, data) => fs.writeFileSync(file, data),
  renameSync: (from, to) => fs.renameSync(from, to),
  unlinkSync: (file) => fs.unlinkSync(file),
  rmSync: (file, options) => fs.rmSync(file, options),
};

let layer: FileLayer = nodeFileLayer;

/**
 * Installs `next` as the storage's file layer for every file opened from now on (and every call on descriptors it
 * opened); returns the function that puts the previous layer back. For tests: production never calls it.
 */
export function installFileLayer(next: FileLayer): () => void {
  const previous = layer;
  layer = next;
  return () => {
    layer = previous;
  };
}

/** What storage modules use instead of node:fs (imported as `fs`, so call sites read as node:fs calls). */
export const storageFs = {
  openSync: (file: string, flags: string): number => layer.openSync(file, flags),
  closeSync: (fd: number): void => layer.closeSync(fd),
  writeSync: (fd: number, buf: NodeJS.ArrayBufferView, off: number, len: number, position: number): number =>
    layer.writeSync(fd, buf, off, len, position),
  readSync: (fd: number, buf: NodeJS.ArrayBufferView, off: number, len: number, position: number): number =>
    layer.readSync(fd, buf, off, len, position),
  fsyncSync: (fd: number): void => layer.fsyncSync(fd),
  fsync: (fd: number, callback: (err: NodeJS.ErrnoException | null) => void): void => layer.fsync(fd, callback),
  ftruncateSync: (fd: number, len: number): void => layer.ftruncateSync(fd, len),
  fstatSync: (fd: number): fs.Stats => layer.fstatSync(fd),
  writeFileSync: (file: string, data: string | NodeJS.ArrayBufferView): void => layer.writeFileSync(file, data),
  renameSync: (from: string, to: string): void => layer.renameSync(from, to),
  unlinkSync: (file: string): void => layer.unlinkSync(file),
  rmSync: (file: string, options?: fs.RmOptions): void => layer.rmSync(file, options),
  readFileSync: fs.readFileSync,
  existsSync: fs.existsSync,
  statSync: fs.statSync,
  readdirSync: fs.readdirSync,
  mkdirSync: fs.mkdirSync,
};

/** `%020d` of a base offset: the stem of every segment file name. */
export function segmentStem(base: number): string {
  return String(base).padStart(20, '0');
}

export function segmentFile(dir: string, base: number, ext: string): string {
  return path.join(dir, `${segmentStem(base)}${ext}`);
}

/** The base of a `%020d<ext>` file name, or undefined when the name is not one (such files are left alone). */
export function parseSegmentName(name: string, ext: string): number | undefined {
  if (name.length !== 20 + ext.length || !name.endsWith(ext)) return undefined;
  const stem = name.slice(0, 20);
  if (!/^\d{20}$/.test(stem)) return undefined;
  const base = Number(stem);
  if (!Number.isSafeInteger(base)) {
    throw new StorageError(`segment ${name}: base offset ${stem} is beyond 2^53, which crater does not address`);
  }
  return base;
}

/** fs.fsync on the libuv threadpool, so a 0.5 ms disk flush never blocks the event loop. */
export function fsyncAsync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => {
    storageFs.fsync(fd, (err) => (err ? reject(err) : resolve()));
  });
}

/** Makes a create, rename or unlink in `dir` durable. Platforms that cannot open a directory skip it. */
export function fsyncDirSync(dir: string): void {
  let fd: number;
  try {
    fd = storageFs.openSync(dir, 'r');
  } catch (err) {
    if (process.platform === 'win32') return;
    throw err;
  }
  try {
    storageFs.fsyncSync(fd);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EPERM' && code !== 'EISDIR') throw err;
  } finally {
    storageFs.closeSync(fd);
  }
}

/** Writes `data` to `file` so a crash leaves either the old or the new content: temp file, fsync, rename, dir fsync. */
export function writeFileAtomicSync(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.tmp`;
  const fd = storageFs.openSync(tmp, 'w');
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    writeFullySync(fd, bytes, 0, bytes.length, 0);
    storageFs.fsyncSync(fd);
  } finally {
    storageFs.closeSync(fd);
  }
  storageFs.renameSync(tmp, file);
  fsyncDirSync(path.dirname(file));
}

/** Writes all of `buf[off, off+len)` at `position`, looping over short writes. Returns the bytes written. */
export function writeFullySync(fd: number, buf: Uint8Array, off: number, len: number, position: number): number {
  let done = 0;
  while (done < len) {
    const n = storageFs.writeSync(fd, buf, off + done, len - done, position + done);
    if (n <= 0) throw new StorageError(`write returned ${n} at position ${position + done}`);
    done += n;
  }
  return done;
}

/** Reads up to `len` bytes at `position` into `buf[off..]`, looping over short reads; stops early only at EOF. */
export function readFullySync(fd: number, buf: Uint8Array, off: number, len: number, position: number): number {
  let done = 0;
  while (done < len) {
    const n = storageFs.readSync(fd, buf, off + done, len - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

/** Writes all of `buf` at `position`. */
export function writeAtSync(fd: number, buf: Uint8Array, position: number): void {
  writeFullySync(fd, buf, 0, buf.length, position);
}

/** Fills all of `buf` from `position`; a file that ends first is a StorageError naming where the bytes ran out. */
export function readAtSync(fd: number, buf: Uint8Array, position: number): void {
  const got = readFullySync(fd, buf, 0, buf.length, position);
  if (got < buf.length) throw new StorageError(`short read at ${position + got}`);
}

/** Lua's `tostring` of a float (`%.14g`, with ".0" appended when it looks integral), as MoonMQ writes `.meta`. */
export function luaFloatToString(x: number): string {
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : x < 0 ? '-inf' : 'nan';
  let s = formatG14(x);
  if (/^-?\d+$/.test(s)) s += '.0';
  return s;
}

function formatG14(x: number): string {
  if (x === 0) return '0';
  const exp = Math.floor(Math.log10(Math.abs(x)));
  if (exp < -4 || exp >= 14) {
    const [m, e] = x.toExponential(13).split('e') as [string, string];
    const mant = m.includes('.') ? m.replace(/0+$/, '').replace(/\.$/, '') : m;
    const n = Number(e);
    return `${mant}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  }
  const fixed = x.toFixed(Math.max(0, 13 - exp));
  return fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
}
