/**
 * A fresh temp dir per test holding one partition directory (`<tmp>/orders/partition-1`), the segmented logs a
 * test opens there, and the file names of its segments. Call `useTempPartition` at module level: it registers the
 * beforeEach/afterEach that create the dir and, after each test, close every log opened through it and remove it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { SegmentedLog } from '../../src/storage/segmented-log.js';
import { TIME_INDEX_ENTRY_BYTES } from '../../src/storage/time-index.js';

type OpenOptions = Parameters<typeof SegmentedLog.open>[1];

export interface TempPartition {
  /** The test's temp dir (removed after it). */
  readonly tmp: string;
  /** The partition directory inside it; it exists once a log with `create` opened it. */
  readonly dir: string;
  /** Opens a SegmentedLog on `dir` with the defaults given to useTempPartition under `options`. */
  openLog(options?: OpenOptions): Promise<SegmentedLog>;
}

/** The 20-digit file stem of the segment whose base offset is `base`. */
export function stem(base: bigint | number): string {
  return String(base).padStart(20, '0');
}

/** The (timestamp, position) entries of the segment's .timeindex file. */
export function timeIndexEntries(dir: string, base: bigint | number): Array<{ ts: bigint; pos: number }> {
  const buf = fs.readFileSync(path.join(dir, `${stem(base)}.timeindex`));
  const out: Array<{ ts: bigint; pos: number }> = [];
  for (let p = 0; p + TIME_INDEX_ENTRY_BYTES <= buf.length; p += TIME_INDEX_ENTRY_BYTES) {
    out.push({ ts: buf.readBigUInt64BE(p), pos: buf.readUInt32BE(p + 8) });
  }
  return out;
}

export function useTempPartition(prefix: string, defaults: OpenOptions = { create: true }): TempPartition {
  let tmp = '';
  let dir = '';
  const open: SegmentedLog[] = [];
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    dir = path.join(tmp, 'orders', 'partition-1');
  });
  afterEach(async () => {
    for (const log of open.splice(0)) await log.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  return {
    get tmp() {
      return tmp;
    },
    get dir() {
      return dir;
    },
    async openLog(options = {}) {
      const log = await SegmentedLog.open(dir, { ...defaults, ...options });
      open.push(log);
      return log;
    },
  };
}
