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
      const fh = await fs.open(file, 'wx').catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
        return undefined;
      });
      if (fh) return DataDirLock.writePid(fh, file);
      const owner = await readPid(file);
      if (owner !== undefined && isAlive(owner)) {
        throw new StorageError(
          `data directory ${dataDir} is in use by another broker (pid ${owner}, lock file ${file})`,
        );
      }
      await fs.rm(file, { force: true });
    }
    throw new StorageError(`could not take the lock ${file}: another broker raced for it`);
  }

  /** Writes the pid into the freshly created lock; on a failure (a full disk) the lock goes and the cause is named. */
  private static async writePid(fh: fs.FileHandle, file: string): Promise<DataDirLock> {
    try {
      await fh.writeFile(`${process.pid}\n`);
    } catch (err) {
      await fh.close();
      await fs.rm(file, { force: true });
      throw new StorageError(`cannot write the lock file ${file}: ${(err as Error).message}`, { cause: err });
    }
    await fh.close();
    return new DataDirLock(file);
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
