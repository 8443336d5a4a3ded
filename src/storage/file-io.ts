/**
 * Small file helpers the storage backends share: segment file names, async fsync on the threadpool, directory
 * fsync, and the temp-file + atomic-rename write every sidecar and checkpoint goes through.
 */
import fs from 'node:fs';
import path from 'node:path';
import { StorageError } from '../errors.js';

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
    fs.fsync(fd, (err) => (err ? reject(err) : resolve()));
  });
}

/** Makes a create, rename or unlink in `dir` durable. Platforms that cannot open a directory skip it. */
export function fsyncDirSync(dir: string): void {
  let fd: number;
  try {
    fd = fs.openSync(dir, 'r');
  } catch (err) {
    if (process.platform === 'win32') return;
    throw err;
  }
  try {
    fs.fsyncSync(fd);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EPERM' && code !== 'EISDIR') throw err;
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes `data` to `file` so a crash leaves either the old or the new content: temp file, fsync, rename, dir fsync. */
export function writeFileAtomicSync(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  fsyncDirSync(path.dirname(file));
}

/** Writes all of `buf[off, off+len)` at `position`, looping over short writes. Returns the bytes written. */
export function writeFullySync(fd: number, buf: Uint8Array, off: number, len: number, position: number): number {
  let done = 0;
  while (done < len) {
    const n = fs.writeSync(fd, buf, off + done, len - done, position + done);
    if (n <= 0) throw new StorageError(`write returned ${n} at position ${position + done}`);
    done += n;
  }
  return done;
}

/** Reads up to `len` bytes at `position` into `buf[off..]`, looping over short reads; stops early only at EOF. */
export function readFullySync(fd: number, buf: Uint8Array, off: number, len: number, position: number): number {
  let done = 0;
  while (done < len) {
    const n = fs.readSync(fd, buf, off + done, len - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
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
