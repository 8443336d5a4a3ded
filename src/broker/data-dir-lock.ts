/**
 * `<dataDir>/.lock`: holds the owning broker's pid, created with O_EXCL so a second broker on the same directory
 * fails at once. A lock whose pid is no longer alive is stale (the owner crashed) and is taken over.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { StorageError } from '../errors.js';

export const LOCK_FILE = '.lock';

export class DataDirLock {
  private constructor(readonly file: string) {}

  static async acquire(dataDir: string): Promise<DataDirLock> {
    const file = path.join(dataDir, LOCK_FILE);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fh = await fs.open(file, 'wx');
        try {
          await fh.writeFile(`${process.pid}\n`);
        } finally {
          await fh.close();
        }
        return new DataDirLock(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const owner = await readPid(file);
      if (owner !== undefined && isAlive(owner)) {
        throw new StorageError(`data directory ${dataDir} is in use by another broker (pid ${owner}, lock file ${file})`);
      }
      await fs.rm(file, { force: true });
    }
    throw new StorageError(`could not take the lock ${file}: another broker raced for it`);
  }

  async release(): Promise<void> {
    await fs.rm(this.file, { force: true });
  }
}

async function readPid(file: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt((await fs.readFile(file, 'utf8')).trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
