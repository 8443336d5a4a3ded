/** truncateTo on both backends, which the produce path uses to take back a partial batch's records past its prefix. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CommitLog } from '../../src/storage/commit-log.js';
import { SegmentedLog } from '../../src/storage/segmented-log.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function tempDir(): Promise<string> {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crater-truncate-'));
  return dir;
}

const recs = (n: number, from = 0, ts = 1_700_000_000_000n) =>
  Array.from({ length: n }, (_, i) => ({
    attrs: 0,
    timestamp: ts + BigInt(from + i),
    key: Buffer.from(`k${from + i}`),
    value: Buffer.alloc(600, from + i),
  }));

describe('SegmentedLog.truncateTo', () => {
  it('cuts back across rolls: later segments and index entries go, the cut survives a clean restart and appends resume there', async () => {
    const d = await tempDir();
    let log = SegmentedLog.openSync(d, { create: true, maxSegmentSize: 8_192 });
    const first = log.append(recs(10));
    const more = log.append(recs(30, 10));
    expect(log.segmentCount).toBeGreaterThan(2);
    const cut = more.offsets[2]!;
    log.truncateTo(cut);
    expect(log.logEndOffset).toBe(cut);
    const segmentsAfterCut = log.segmentCount;
    const files = (await fs.readdir(d)).filter((f) => f.endsWith('.log'));
    expect(files).toHaveLength(segmentsAfterCut);
    expect(log.read(0n, { maxRecords: 100 }).map((r) => r.key.toString())).toEqual(
      recs(12).map((r) => r.key.toString()),
    );
    expect(log.offsetForTimestamp(1_700_000_000_000n + 20n)).toEqual({ offset: cut, found: false });
    await log.sync();
    await log.close();

    log = SegmentedLog.openSync(d, { maxSegmentSize: 8_192 });
    expect(log.logEndOffset).toBe(cut);
    expect(log.offsetForTimestamp(1_700_000_000_000n + 5n)).toEqual({ offset: first.offsets[5]!, found: true });
    const again = log.append(recs(1, 99));
    expect(again.offsets[0]).toBe(cut);
    expect(log.read(cut, { maxRecords: 5 }).map((r) => r.key.toString())).toEqual(['k99']);
    await log.close();
  });

  it('at or past the LEO is a no-op; below the log start throws and changes nothing', async () => {
    const d = await tempDir();
    const log = SegmentedLog.openSync(d, { create: true });
    log.append(recs(3));
    const leo = log.logEndOffset;
    log.truncateTo(leo + 100n);
    expect(log.logEndOffset).toBe(leo);
    expect(() => log.truncateTo(-1n)).toThrow(/below the log start/);
    expect(log.logEndOffset).toBe(leo);
    log.truncateTo(0n);
    expect(log.logEndOffset).toBe(0n);
    expect(log.read(0n, { maxRecords: 10 })).toEqual([]);
    await log.close();
  });
});

describe('CommitLog.truncateTo', () => {
  it('cuts back across rolls; the index and the LEO follow, and a reopen agrees', async () => {
    const d = await tempDir();
    let log = CommitLog.open(d, { segmentBytes: 4_096 });
    log.append(recs(25));
    expect(log.segmentInfo.length).toBeGreaterThan(2);
    log.truncateTo(7n);
    expect(log.logEndOffset).toBe(7n);
    expect(log.segmentInfo.at(-1)!.base).toBeLessThanOrEqual(7n);
    expect(log.read(0n, { maxRecords: 100 }).map((r) => r.key.toString())).toEqual(
      recs(7).map((r) => r.key.toString()),
    );
    expect(log.append(recs(1, 50)).offsets).toEqual([7n]);
    await log.close();

    log = CommitLog.open(d, { segmentBytes: 4_096 });
    expect(log.logEndOffset).toBe(8n);
    expect(log.read(6n, { maxRecords: 5 }).map((r) => r.key.toString())).toEqual(['k6', 'k50']);
    expect(() => log.truncateTo(-1n)).toThrow(/below the log start/);
    await log.close();
  });
});
