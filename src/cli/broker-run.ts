/**
 * What `crater broker start` needs besides the broker: a stderr logger, a throwaway data directory and a pid file.
 * CLI helpers, so they live in cli/ and the broker keeps no process-facing code.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../broker/index.js';

/** One line per event on stderr: `level message key=value …`; debug lines only when verbose. */
export function stderrLogger(verbose = false): Logger {
  const line = (level: string, message: string, fields?: Record<string, unknown>) => {
    let text = `${new Date().toISOString()} ${level} ${message}`;
    for (const [k, v] of Object.entries(fields ?? {})) text += ` ${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`;
    process.stderr.write(`${text}\n`);
  };
  return {
    debug: (m, f) => (verbose ? line('debug', m, f) : undefined),
    info: (m, f) => line('info', m, f),
    warn: (m, f) => line('warn', m, f),
    error: (m, f) => line('error', m, f),
  };
}

export async function temporaryDataDir(keep = false): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crater-data-'));
  return {
    dir,
    async remove() {
      if (!keep) await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Writes this process's pid to `file` (for `kill "$(cat file)"`: a broker started through `npx ... &` cannot be
 * stopped with `kill $!`, which names npm, and npm does not forward signals). `remove` deletes it again.
 */
export async function writePidFile(file: string): Promise<{ remove(): Promise<void> }> {
  await fs.writeFile(file, `${process.pid}\n`);
  return {
    async remove() {
      await fs.rm(file, { force: true });
    },
  };
}
