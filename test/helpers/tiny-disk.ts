/**
 * A real full disk for ENOSPC tests: a tmpfs of a few MiB mounted on a temp dir. Mounting needs root (and the
 * CAP_SYS_ADMIN a container may withhold) on Linux; where it cannot be done, `mountTinyDisk` says why and the test
 * skips with that reason instead of faking the failure.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDataDir } from './temp-broker.js';

export interface TinyDisk {
  dir: string;
  /** Writes filler until the disk has no byte left (ENOSPC), and returns the filler's path. */
  fill(): string;
  unmount(): Promise<void>;
}

export async function mountTinyDisk(sizeMiB = 4): Promise<TinyDisk | { skip: string }> {
  if (process.platform !== 'linux') return { skip: 'a tmpfs full-disk test needs Linux' };
  if (process.getuid?.() !== 0) return { skip: 'mounting a tmpfs needs root' };
  const dir = await tempDataDir();
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    return { skip: `cannot mount a tmpfs here: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}` };
  }
  return {
    dir,
    fill() {
      const file = path.join(dir, `filler-${Date.now()}`);
      const fd = fs.openSync(file, 'w');
      const chunk = Buffer.alloc(64 * 1024, 1);
      try {
        for (let size = chunk.length; size >= 1;) {
          try {
            fs.writeSync(fd, chunk, 0, size);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
            size = Math.floor(size / 2);
          }
        }
      } finally {
        fs.closeSync(fd);
      }
      return file;
    },
    async unmount() {
      execFileSync('umount', [dir], { stdio: 'pipe' });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
