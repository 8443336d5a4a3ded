/**
 * The on-disk readers as the commands reach them: `segments inspect`, `state dump` and `share state` import this
 * module (lazily, in run()) instead of reaching into storage/, so the CLI's view of the library is one place. A path
 * that does not exist is a usage error (exit 2) here, before any reader runs: the user typed it.
 */
import fs from 'node:fs';
import { UsageError } from '../errors.js';

export { inspectPaths } from '../storage/inspect/inspect.js';
export { dumpProducerState } from '../storage/producer-state/dump.js';
export { dumpShareState } from '../storage/share-state-dump.js';

/** Throws a UsageError naming the first path in `paths` that does not exist. */
export function requireExistingPaths(paths: readonly string[], what = 'path'): void {
  for (const p of paths) if (!fs.existsSync(p)) throw new UsageError(`${what} "${p}" does not exist`);
}
