import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommitLog, segmentFileName } from '../../../src/storage/commit-log.js';
import { compactSegments, replayCompacted, segmentsOverBudget } from '../../../src/storage/compaction.js';
import { type RecordToStore, encodeRecord, recordSize } from '../../../src/storage/record.js';

let dir: string;
const open: CommitLog[] = [];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-compaction-'));
});

afterEach(async () => {
  for (const log of open.splice(0)) await log.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function openAt(sub: string, options: Parameters<typeof CommitLog.open>[1] = {}): CommitLog {
  const log = CommitLog.open(path.join(dir, sub), options);
  open.push(log);
  return log;
}

const rec = (key: string, value: string): RecordToStore => ({
  attrs: 0,
  timestamp: 1_700_000_000_000n,
  key: Buffer.from(key),
  value: Buffer.from(value),
});
const ONE = recordSize(rec('a', '1'));

function contents(log: CommitLog): [bigint, string, string][] {
  return log.read(0n, { maxRecords: 1000 }).map((r) => [r.offset, r.key.toString(), r.value.toString()]);
}

describe('compaction', () => {
  it('keeps the latest record per key and renumbers survivors from each segment base', () => {
    // Three records per segment; the roll after segment [3..5] compacts both closed segments.
    const log = openAt('p', { segmentBytes: ONE * 3, cleanupPolicy: 'compact' });
    log.append([rec('a', '1'), rec('b', '1'), rec('a', '2'), rec('c', '1'), rec('b', '2'), rec('d', '1')]);
    // The roll before c compacted segment 0 alone: a=1 gave way to a=2 and b moved down to offset 0.
    expect(contents(log)).toEqual([
      [0n, 'b', '1'],
      [1n, 'a', '2'],
      [3n, 'c', '1'],
      [4n, 'b', '2'],
      [5n, 'd', '1'],
    ]);
    log.append([rec('e', '1')]);
    expect(log.segmentInfo.map((s) => [s.base, s.records])).toEqual([
      [0n, 1],
      [3n, 3],
      [6n, 1],
    ]);
    expect(contents(log)).toEqual([
      [0n, 'a', '2'],
      [3n, 'c', '1'],
      [4n, 'b', '2'],
      [5n, 'd', '1'],
      [6n, 'e', '1'],
    ]);
    // The rewritten index describes the renumbered survivors.
    expect(fs.readFileSync(path.join(dir, 'p', segmentFileName(0n, '.index'))).toString('hex')).toBe(
      '0000000000000000',
    );
  });

  it('drops a tombstoned key entirely, tombstone included, and removes a segment left empty', () => {
    const log = openAt('p', { segmentBytes: ONE * 2, cleanupPolicy: 'compact' });
    log.append([rec('a', '1'), rec('b', '1')]);
    log.append([{ ...rec('a', ''), value: Buffer.alloc(0) }, rec('b', '2'), rec('c', '1')]);
    log.rollAndClean();
    expect(contents(log)).toEqual([
      [2n, 'b', '2'],
      [3n, 'c', '1'],
    ]);
    expect(fs.existsSync(path.join(dir, 'p', segmentFileName(0n, '.log')))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'p', segmentFileName(0n, '.index')))).toBe(false);
    expect(log.logStartOffset).toBe(2n);
  });

  it('keeps the compacted state across a reopen', async () => {
    const log = openAt('p', { segmentBytes: ONE * 2, cleanupPolicy: 'compact' });
    log.append([rec('a', '1'), rec('a', '2'), rec('a', '3')]);
    await log.close();
    open.pop();
    // Only closed segments are compacted: a=2 survives in segment 0 until a later roll sees a=3 closed too.
    const again = openAt('p', { segmentBytes: ONE * 2, cleanupPolicy: 'compact' });
    expect(contents(again)).toEqual([
      [0n, 'a', '2'],
      [2n, 'a', '3'],
    ]);
    expect(again.logEndOffset).toBe(3n);
    again.rollAndClean();
    expect(contents(again)).toEqual([[2n, 'a', '3']]);
    expect(again.logEndOffset).toBe(3n);
  });

  it('promotes a .log.cleaned whose .log was lost mid-compaction, and discards one whose .log remains', async () => {
    const log = openAt('p');
    log.append([rec('a', '1'), rec('a', '2')]);
    await log.close();
    open.pop();
    const logPath = path.join(dir, 'p', segmentFileName(0n, '.log'));
    // Crash between removing the .log and renaming the cleaned copy: the cleaned copy becomes the segment.
    fs.writeFileSync(`${logPath}.cleaned`, encodeRecord(rec('a', '2')));
    fs.rmSync(logPath);
    const again = openAt('p');
    expect(contents(again)).toEqual([[0n, 'a', '2']]);
    await again.close();
    open.pop();
    // Crash before the rename: the original stays and the partial cleaned file is deleted.
    fs.writeFileSync(`${logPath}.cleaned`, Buffer.from('partial'));
    const third = openAt('p');
    expect(contents(third)).toEqual([[0n, 'a', '2']]);
    expect(fs.existsSync(`${logPath}.cleaned`)).toBe(false);
  });

  it('leaves no .cleaned files behind and reports unchanged segments', () => {
    const p = path.join(dir, 'q');
    const log = openAt('q');
    log.append([rec('a', '1'), rec('b', '1')]);
    const stats = compactSegments([
      {
        base: 0n,
        logPath: path.join(p, segmentFileName(0n, '.log')),
        indexPath: path.join(p, segmentFileName(0n, '.index')),
        size: ONE * 2,
        positions: [0, ONE],
      },
    ]);
    expect(stats.outcomes).toEqual([{ kind: 'unchanged' }]);
    expect(stats.recordsAfter).toBe(2);
    expect(fs.readdirSync(p).some((n) => n.endsWith('.cleaned'))).toBe(false);
  });

  it('computes the delete budget from the oldest segment on', () => {
    expect(segmentsOverBudget([10, 10, 10], 0)).toBe(0);
    expect(segmentsOverBudget([10, 10, 10], 25)).toBe(1);
    expect(segmentsOverBudget([10, 10, 10], 1)).toBe(2);
  });

  it('replays partitions front to back, last record wins, tombstones delete', () => {
    const p1 = openAt('partition-1');
    const p2 = openAt('partition-2');
    p1.append([rec('x', '1'), rec('y', '1')]);
    p2.append([rec('x', '2'), rec('z', '1'), { ...rec('y', ''), value: Buffer.alloc(0) }]);
    const state = replayCompacted([p1, p2], 1);
    const view = [...state.values()].map((e) => [e.key.toString(), e.value.toString(), e.partition, e.offset]);
    expect(view.sort()).toEqual([
      ['x', '2', 2, 0n],
      ['z', '1', 2, 1n],
    ]);
  });
});
