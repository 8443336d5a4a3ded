/**
 * What an ERROR reply may say about a failure: never a server path (issue 11). Messages the broker writes for the
 * client are kept; the data directory is replaced wherever a wrapped cause carried it, and a Node system error
 * (open, fsync, EMFILE, ENOSPC, …) is reduced to its syscall and code, since its message names the file.
 */
import fs from 'node:fs';
import path from 'node:path';

const hidden = new Map<string, readonly string[]>();

/** The spellings of `dataDir` a message might contain (as configured, absolute, symlinks resolved), longest first. */
function spellingsOf(dataDir: string): readonly string[] {
  let forms = hidden.get(dataDir);
  if (!forms) {
    const set = new Set([dataDir, path.resolve(dataDir)]);
    try {
      set.add(fs.realpathSync(dataDir));
    } catch {
      // Not created yet or gone: the configured forms are all a message can hold.
    }
    forms = [...set].filter((f) => f.length > 1).sort((a, b) => b.length - a.length);
    hidden.set(dataDir, forms);
  }
  return forms;
}

export function withoutServerPaths(message: string, dataDir: string): string {
  let out = message;
  for (const form of spellingsOf(dataDir)) {
    if (out.includes(form)) out = out.split(form).join('<data-dir>');
  }
  return out;
}

interface SystemError {
  code: string;
  syscall: string;
}

function isSystemError(err: unknown): err is Error & SystemError {
  const e = err as Partial<SystemError> | null;
  return err instanceof Error && typeof e?.code === 'string' && typeof e.syscall === 'string';
}

/** The text an ERR_INTERNAL reply carries for an unexpected exception (the full error goes to the log). */
export function publicErrorMessage(err: unknown, dataDir: string): string {
  if (isSystemError(err)) return `${err.syscall} failed: ${err.code}`;
  const message = err instanceof Error ? err.message : String(err);
  return withoutServerPaths(message, dataDir);
}
