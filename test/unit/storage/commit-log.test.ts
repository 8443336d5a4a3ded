import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommitLog, segmentFileName } from '../../../src/storage/commit-log.js';
import { type RecordToStore, encodeRecord, recordSize } from '../../../src/storage/record.js';

let dir: string;
const open: CommitLog[] = [];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-commitlog-'));
});

afterEach(async () => {
  for (const log of open.splice(0)) await log.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function openLog(options: Parameters<typeof CommitLog.open>[1] = {}): CommitLog {
  const log = CommitLog.open(dir, options);
  open.push(log);
  return log;
}

function rec(key: string, value: string, ts = 1_700_000_000_000n): RecordToStore {
  return { attrs: 0, timestamp: ts, key: Buffer.from(key), value: Buffer.from(value) };
}

const file = (base: bigint, ext: string) => path.join(dir, segmentFileName(base, ext));

describe('CommitLog', () => {
  it('numbers records by message count and reads them back', () => {
    const log = openLog();
    expect(log.logStartOffset).toBe(0n);
    expect(log.logEndOffset).toBe(0n);
    const { offsets, error } = log.append([rec('a', '1'), rec('b', '2'), rec('c', '3')]);
    expect(error).toBeUndefined();
    expect(offsets).toEqual([0n, 1n, 2n]);
    expect(log.logEndOffset).toBe(3n);
    const got = log.read(1n, { maxRecords: 10 });
    expect(got.map((r) => [r.offset, r.nextOffset, r.key.toString(), r.value.toString()])).toEqual([
      [1n, 2n, 'b', '2'],
      [2n, 3n, 'c', '3'],
    ]);
    expect(log.read(3n, { maxRecords: 10 })).toEqual([]);
  });

  it('writes a dense index of (offset − base, position) entries and the log bytes exactly', () => {
    const log = openLog();
    const records = [rec('k', 'v'), rec('key-2', 'value-2')];
    log.append(records);
    const index = fs.readFileSync(file(0n, '.index'));
    expect(index.toString('hex')).toBe('00000000' + '00000000' + '00000001' + '0000001f');
    expect(fs.readFileSync(file(0n, '.log'))).toEqual(Buffer.concat(records.map(encodeRecord)));
  });

  it('honours maxRecords and maxBytes but always returns one record', () => {
    const log = openLog();
    log.append([rec('a', 'x'.repeat(100)), rec('b', 'y'), rec('c', 'z')]);
    expect(log.read(0n, { maxRecords: 2 })).toHaveLength(2);
    expect(log.read(0n, { maxRecords: 10, maxBytes: 10 })).toHaveLength(1);
    expect(log.read(1n, { maxRecords: 10, maxBytes: 70 })).toHaveLength(2);
  });

  it('rolls when the active segment is at or past segmentBytes, checked before each append', () => {
    const size = recordSize(rec('a', '1'));
    const log = openLog({ segmentBytes: size * 2 });
    // One call crossing the threshold is split: two records fill segment 0, the third starts segment 2.
    log.append([rec('a', '1'), rec('b', '2'), rec('c', '3')]);
    expect(log.segmentInfo.map((s) => [s.base, s.records])).toEqual([
      [0n, 2],
      [2n, 1],
    ]);
    expect(fs.existsSync(file(2n, '.log'))).toBe(true);
    expect(log.read(0n, { maxRecords: 10 }).map((r) => r.offset)).toEqual([0n, 1n, 2n]);
  });

  it('lets a segment overshoot: one record larger than segmentBytes still lands in a fresh segment', () => {
    const log = openLog({ segmentBytes: 10 });
    log.append([rec('a', 'x'.repeat(50))]);
    log.append([rec('b', 'y')]);
    expect(log.segmentInfo.map((s) => s.base)).toEqual([0n, 1n]);
    expect(log.segmentInfo[0]!.bytes).toBeGreaterThan(10);
  });

  it('counts one fsync per sync() call, none for appends', async () => {
    const log = openLog();
    log.append(Array.from({ length: 20 }, (_, i) => rec(`k${i}`, `v${i}`)));
    expect(log.fsyncCount).toBe(0);
    await log.sync();
    expect(log.fsyncCount).toBe(1);
    await Promise.all([log.sync(), log.sync()]);
    expect(log.fsyncCount).toBe(3);
  });

  it('reopens with the same offsets and contents', async () => {
    const log = openLog({ segmentBytes: 64 });
    log.append([rec('a', '1'), rec('b', '2'), rec('c', '3'), rec('d', '4')]);
    await log.close();
    const again = openLog({ segmentBytes: 64 });
    expect(again.logEndOffset).toBe(4n);
    expect(again.read(0n, { maxRecords: 10 }).map((r) => r.key.toString())).toEqual(['a', 'b', 'c', 'd']);
    expect(again.append([rec('e', '5')]).offsets).toEqual([4n]);
  });

  it('truncates a torn tail on open: the partial record is dropped, the records before it kept', async () => {
    const log = openLog();
    log.append([rec('a', '1'), rec('b', '2')]);
    await log.close();
    const good = fs.statSync(file(0n, '.log')).size;
    fs.appendFileSync(file(0n, '.log'), encodeRecord(rec('c', '3')).subarray(0, 20));
    const again = openLog();
    expect(again.logEndOffset).toBe(2n);
    expect(fs.statSync(file(0n, '.log')).size).toBe(good);
    expect(fs.statSync(file(0n, '.index')).size).toBe(16);
    expect(again.append([rec('c', '3')]).offsets).toEqual([2n]);
  });

  it('truncates every segment at its first CRC failure, later records of that segment included', async () => {
    const size = recordSize(rec('a', '1'));
    const log = openLog({ segmentBytes: size * 3 });
    log.append(['a', 'b', 'c', 'd', 'e'].map((k) => rec(k, '1')));
    await log.close();
    const bytes = fs.readFileSync(file(0n, '.log'));
    bytes[size + 30]! ^= 0xff; // the second record's payload CRC
    fs.writeFileSync(file(0n, '.log'), bytes);
    const again = openLog({ segmentBytes: size * 3 });
    expect(again.segmentInfo.map((s) => [s.base, s.records])).toEqual([
      [0n, 1],
      [3n, 2],
    ]);
    expect(fs.statSync(file(0n, '.log')).size).toBe(size);
    // Reads skip the gap [1, 3) left by the truncation.
    expect(again.read(1n, { maxRecords: 10 }).map((r) => r.key.toString())).toEqual(['d', 'e']);
  });

  it('rebuilds a wrong or missing dense index from the log', async () => {
    const log = openLog();
    log.append([rec('a', '1'), rec('b', '2'), rec('c', '3')]);
    await log.close();
    const expected = fs.readFileSync(file(0n, '.index'));
    fs.writeFileSync(file(0n, '.index'), Buffer.from('garbage'));
    openLog();
    expect(fs.readFileSync(file(0n, '.index'))).toEqual(expected);
    await open.pop()!.close();
    fs.rmSync(file(0n, '.index'));
    openLog();
    expect(fs.readFileSync(file(0n, '.index'))).toEqual(expected);
  });

  it('applies the .cleaned recovery rules', async () => {
    const log = openLog();
    log.append([rec('a', '1')]);
    await log.close();
    const original = fs.readFileSync(file(0n, '.log'));
    // A leftover .log.cleaned beside its .log is an unfinished compaction: deleted, the .log kept.
    fs.writeFileSync(`${file(0n, '.log')}.cleaned`, encodeRecord(rec('z', '9')));
    fs.writeFileSync(`${file(0n, '.index')}.cleaned`, Buffer.alloc(8));
    // An index with no log is deleted; a .log.cleaned with no .log is promoted.
    fs.writeFileSync(file(7n, '.index'), Buffer.alloc(8));
    fs.writeFileSync(`${file(5n, '.log')}.cleaned`, encodeRecord(rec('p', 'promoted')));
    const again = openLog();
    const names = fs.readdirSync(dir).sort();
    expect(names).toEqual([
      segmentFileName(0n, '.index'),
      segmentFileName(0n, '.log'),
      segmentFileName(5n, '.index'),
      segmentFileName(5n, '.log'),
    ]);
    expect(fs.readFileSync(file(0n, '.log'))).toEqual(original);
    expect(again.read(0n, { maxRecords: 10 }).map((r) => [r.offset, r.value.toString()])).toEqual([
      [0n, '1'],
      [5n, 'promoted'],
    ]);
  });

  it('finds offsets by timestamp', () => {
    const log = openLog({ segmentBytes: 40 });
    log.append([rec('a', '1', 10n), rec('b', '2', 20n), rec('c', '3', 30n)]);
    expect(log.offsetForTimestamp(15n)).toEqual({ offset: 1n, found: true });
    expect(log.offsetForTimestamp(5n)).toEqual({ offset: 0n, found: true });
    expect(log.offsetForTimestamp(31n)).toEqual({ offset: 3n, found: false });
  });

  it('deletes the oldest segments past max_log_bytes at a roll, never the active one', () => {
    const size = recordSize(rec('a', '1'));
    const log = openLog({ segmentBytes: size, cleanupPolicy: 'delete', maxLogBytes: size * 2 });
    log.append(['a', 'b', 'c', 'd', 'e'].map((k) => rec(k, '1')));
    // At the last roll the log was 4 full segments and an empty active one; two fit the budget of 2.
    expect(log.segmentInfo.map((s) => s.base)).toEqual([2n, 3n, 4n]);
    expect(log.logStartOffset).toBe(2n);
    expect(fs.existsSync(file(0n, '.log'))).toBe(false);
    expect(fs.existsSync(file(1n, '.index'))).toBe(false);
    expect(log.read(0n, { maxRecords: 10 }).map((r) => r.offset)).toEqual([2n, 3n, 4n]);
  });

  it('keeps everything when max_log_bytes is 0', () => {
    const size = recordSize(rec('a', '1'));
    const log = openLog({ segmentBytes: size });
    log.append(['a', 'b', 'c', 'd'].map((k) => rec(k, '1')));
    expect(log.segmentInfo).toHaveLength(4);
  });

  it('lets an fsync in flight finish when a roll compacts its segment or the log closes', async () => {
    const size = recordSize(rec('a', '1'));
    const log = openLog({ segmentBytes: size, cleanupPolicy: 'compact' });
    log.append([rec('a', '1')]);
    const pending = log.sync();
    // The roll compacts segment 0 and retires its descriptor while the fsync on it is still running.
    log.append([rec('a', '2'), rec('a', '3')]);
    const closing = log.sync().then(() => log.close());
    await expect(Promise.all([pending, closing])).resolves.toEqual([undefined, undefined]);
    expect(log.fsyncCount).toBeGreaterThanOrEqual(3);
    open.splice(open.indexOf(log), 1);
    const again = openLog();
    expect(again.read(0n, { maxRecords: 10 }).map((r) => [r.offset, r.value.toString()])).toEqual([
      [1n, '2'],
      [2n, '3'],
    ]);
  });

  it('refuses use after close', async () => {
    const log = openLog();
    await log.close();
    expect(() => log.append([rec('a', '1')])).toThrow(/closed/);
  });
});
