import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { StorageError } from '../../../src/errors.js';
import type { RecordToStore } from '../../../src/storage/partition-log.js';
import { encodeRecord, recordSize } from '../../../src/storage/record.js';
import { SegmentedLog } from '../../../src/storage/segmented-log.js';
import { stem, timeIndexEntries, useTempPartition } from '../../helpers/temp-partition.js';

const T0 = 1_700_000_000_000n;

function rec(value: string | Buffer, timestamp = T0, key = ''): RecordToStore {
  return { attrs: 0, timestamp, key: Buffer.from(key), value: typeof value === 'string' ? Buffer.from(value) : value };
}

const part = useTempPartition('crater-seglog-');
const openLog = part.openLog;

describe('SegmentedLog offsets and round trips', () => {
  it('gives byte positions as offsets: the first record at 0, the next at offset + size', async () => {
    const log = await openLog();
    const records = [rec('a', T0, 'k1'), rec('bb', T0 + 1n), rec('ccc', T0 + 2n, 'key-3')];
    const { offsets, error } = log.append(records);
    expect(error).toBeUndefined();
    const sizes = records.map(recordSize);
    expect(offsets).toEqual([0n, BigInt(sizes[0]!), BigInt(sizes[0]! + sizes[1]!)]);
    expect(log.logEndOffset).toBe(BigInt(sizes[0]! + sizes[1]! + sizes[2]!));
    const read = log.read(0n, { maxRecords: 10 });
    expect(read.map((r) => r.value.toString())).toEqual(['a', 'bb', 'ccc']);
    expect(read.map((r) => r.key.toString())).toEqual(['k1', '', 'key-3']);
    expect(read.map((r) => r.offset)).toEqual(offsets);
    expect(read[2]!.nextOffset).toBe(log.logEndOffset);
    // The log file holds exactly the encoded records, back to back.
    const bytes = fs.readFileSync(path.join(part.dir, `${stem(0)}.log`));
    expect(bytes.equals(Buffer.concat(records.map(encodeRecord)))).toBe(true);
  });

  it('rolls before a record that would push a non-empty segment past maxSegmentSize, and reads across rolls', async () => {
    const log = await openLog({ maxSegmentSize: 300 });
    const records = Array.from({ length: 12 }, (_, i) => rec(Buffer.alloc(71, i), T0 + BigInt(i)));
    const size = recordSize(records[0]!);
    expect(size).toBe(100);
    const first = log.append(records.slice(0, 5));
    const second = log.append(records.slice(5));
    const offsets = [...first.offsets, ...second.offsets];
    expect(offsets).toEqual(records.map((_, i) => BigInt(i * size)));
    expect(log.segmentBases()).toEqual([0n, 300n, 600n, 900n]);
    for (const base of [0, 300, 600, 900]) {
      expect(fs.statSync(path.join(part.dir, `${stem(base)}.log`)).size).toBe(300);
      expect(fs.existsSync(path.join(part.dir, `${stem(base)}.timeindex`))).toBe(true);
      expect(fs.readFileSync(path.join(part.dir, `${stem(base)}.meta`), 'utf8')).toMatch(/^\d+(\.\d+)?$/);
    }
    // The checkpoint names the base of the last roll.
    expect(fs.readFileSync(path.join(part.dir, 'recovery-checkpoint'), 'utf8')).toBe('900');
    const all = log.read(0n, { maxRecords: 100 });
    expect(all.map((r) => r.value[0])).toEqual(records.map((_, i) => i));
    // A bounded read that starts mid-log crosses the segment boundary at 600.
    const mid = log.read(500n, { maxRecords: 3 });
    expect(mid.map((r) => r.offset)).toEqual([500n, 600n, 700n]);
  });

  it('puts a record larger than maxSegmentSize alone in a segment', async () => {
    const log = await openLog({ maxSegmentSize: 100 });
    const big = rec(Buffer.alloc(500, 1));
    const { offsets } = log.append([rec('x'), big, rec('y')]);
    expect(log.segmentCount).toBe(3);
    expect(offsets[1]).toBe(BigInt(recordSize(rec('x'))));
    expect(log.read(offsets[1]!, { maxRecords: 1 })[0]!.value.length).toBe(500);
  });

  it('bounds reads by maxRecords and maxBytes but always returns one record when any exists', async () => {
    const log = await openLog();
    log.append(Array.from({ length: 10 }, () => rec(Buffer.alloc(71))));
    expect(log.read(0n, { maxRecords: 4 })).toHaveLength(4);
    expect(log.read(0n, { maxRecords: 100, maxBytes: 350 })).toHaveLength(3);
    expect(log.read(0n, { maxRecords: 100, maxBytes: 10 })).toHaveLength(1);
    expect(log.read(0n, { maxRecords: 0 })).toHaveLength(0);
  });

  it('moves a cursor at or past the LEO to the LEO (nothing to read) and rejects a cursor inside a record', async () => {
    const log = await openLog();
    log.append([rec('one'), rec('two')]);
    expect(log.read(log.logEndOffset, { maxRecords: 5 })).toEqual([]);
    expect(log.read(log.logEndOffset + 1000n, { maxRecords: 5 })).toEqual([]);
    expect(() => log.read(1n, { maxRecords: 5 })).toThrow(expect.objectContaining({ code: 'ERR_CORRUPT' }));
  });

  it('returns a prefix of the records when the rest of the requested range is corrupt', async () => {
    const log = await openLog();
    const { offsets } = log.append([rec('one'), rec('two'), rec('three')]);
    // Corrupt the second record's header (its timestamp) behind the log's back: the first is returned, the read
    // stops there. (Payload bytes this process wrote are not re-hashed on read: see segment-reader.test.ts.)
    const file = path.join(part.dir, `${stem(0)}.log`);
    const bytes = fs.readFileSync(file);
    bytes[Number(offsets[1]) + 8 + 5]! ^= 0xff;
    fs.writeFileSync(file, bytes);
    const got = log.read(0n, { maxRecords: 5 });
    expect(got.map((r) => r.value.toString())).toEqual(['one']);
    expect(() => log.read(offsets[1]!, { maxRecords: 5 })).toThrow(expect.objectContaining({ code: 'ERR_CORRUPT' }));
  });

  it('keeps headers, transactional ids and control flags through a round trip', async () => {
    const log = await openLog();
    log.append([
      {
        attrs: 0,
        timestamp: T0,
        key: Buffer.from('k'),
        value: Buffer.from('v'),
        headers: [{ name: 'h', value: Buffer.from('x') }],
      },
      { attrs: 0x04, timestamp: T0, key: Buffer.alloc(0), value: Buffer.alloc(11), producerId: 7n, epoch: 3 },
    ]);
    const [a, b] = log.read(0n, { maxRecords: 2 });
    expect(a!.headers).toEqual([{ name: 'h', value: Buffer.from('x') }]);
    expect(a!.value.toString()).toBe('v');
    expect(b!.attrs & 0x0c).toBe(0x0c);
    expect([b!.producerId, b!.epoch]).toEqual([7n, 3]);
  });
});

describe('SegmentedLog durability', () => {
  it('costs exactly one fsync for 20 records in one append and one sync, and none for a sync with nothing new', async () => {
    const log = await openLog();
    log.append(Array.from({ length: 20 }, (_, i) => rec(`v${i}`)));
    expect(log.fsyncCount).toBe(0);
    await log.sync();
    expect(log.fsyncCount).toBe(1);
    await log.sync();
    expect(log.fsyncCount).toBe(1);
  });

  it('coalesces concurrent syncs into at most two fsyncs with the default (eager) policy', async () => {
    const log = await openLog();
    const syncs: Array<Promise<void>> = [];
    for (let i = 0; i < 16; i++) {
      log.append([rec(`p${i}`)]);
      syncs.push(log.sync());
    }
    await Promise.all(syncs);
    expect(log.fsyncCount).toBeGreaterThanOrEqual(1);
    expect(log.fsyncCount).toBeLessThanOrEqual(2);
  });

  it('writes the checkpoint (= LEO) and .clean-shutdown at close, and removes the marker on the next load', async () => {
    const log = await SegmentedLog.open(part.dir, { create: true, maxSegmentSize: 200 });
    log.append(Array.from({ length: 5 }, () => rec(Buffer.alloc(71))));
    const leo = log.logEndOffset;
    await log.close();
    expect(fs.readFileSync(path.join(part.dir, '.clean-shutdown'), 'utf8')).toBe('1');
    expect(fs.readFileSync(path.join(part.dir, 'recovery-checkpoint'), 'utf8')).toBe(String(leo));
    const again = await openLog({ maxSegmentSize: 200 });
    expect(fs.existsSync(path.join(part.dir, '.clean-shutdown'))).toBe(false);
    expect(again.recovery.cleanShutdown).toBe(true);
    expect(again.logEndOffset).toBe(leo);
    expect(again.read(0n, { maxRecords: 10 })).toHaveLength(5);
    expect(again.append([rec('next')]).offsets).toEqual([leo]);
  });

  it('fault hook: a write failing after 3 records leaves 3 records, 3 offsets and an error', async () => {
    const log = await openLog({ faults: { failAfterRecords: 3 } });
    const records = Array.from({ length: 5 }, (_, i) => rec(`r${i}`));
    const result = log.append(records);
    expect(result.offsets).toHaveLength(3);
    expect(result.error).toBeInstanceOf(StorageError);
    await log.sync();
    expect(log.fsyncCount).toBe(1);
    log.faults = undefined;
    await log.close();
    const again = await openLog();
    expect(again.read(0n, { maxRecords: 10 }).map((r) => r.value.toString())).toEqual(['r0', 'r1', 'r2']);
    expect(again.logEndOffset).toBe(BigInt(records.slice(0, 3).reduce((n, r) => n + recordSize(r), 0)));
  });

  it('stops at a record that cannot be encoded and writes the ones before it', async () => {
    const log = await openLog();
    const result = log.append([rec('ok'), rec('bad', -1n), rec('never')]);
    expect(result.offsets).toEqual([0n]);
    expect(result.error).toBeInstanceOf(StorageError);
    expect(log.read(0n, { maxRecords: 5 }).map((r) => r.value.toString())).toEqual(['ok']);
  });

  it('cuts a torn tail left by a failed write back to the tracked size and rolls before the next append', async () => {
    const log = await openLog();
    log.append([rec('one')]);
    const end = log.logEndOffset;
    const file = path.join(part.dir, `${stem(0)}.log`);
    const realWrite = fs.writeSync;
    // The write of 'lost' gets 5 bytes onto the disk, then fails, and cutting them back fails too: a torn tail.
    const write = vi
      .spyOn(fs, 'writeSync')
      .mockImplementationOnce(((fd: number, buf: Uint8Array, off: number, _len: number, pos: number) =>
        realWrite(fd, buf, off, 5, pos)) as typeof fs.writeSync)
      .mockImplementationOnce(() => {
        throw Object.assign(new Error('EIO: injected'), { code: 'EIO' });
      });
    const truncate = vi.spyOn(fs, 'ftruncateSync').mockImplementationOnce(() => {
      throw Object.assign(new Error('EIO: injected'), { code: 'EIO' });
    });
    try {
      expect(log.append([rec('lost')]).error).toBeInstanceOf(StorageError);
    } finally {
      write.mockRestore();
      truncate.mockRestore();
    }
    expect(fs.statSync(file).size).toBe(Number(end) + 5);
    const { offsets } = log.append([rec('two')]);
    expect(offsets).toEqual([end]);
    expect(log.segmentBases()).toEqual([0n, end]);
    expect(fs.statSync(file).size).toBe(Number(end));
    expect(log.read(0n, { maxRecords: 5 }).map((r) => r.value.toString())).toEqual(['one', 'two']);
  });

  it('overwrites bytes another process appended past the tracked end; reads never see them', async () => {
    const log = await openLog();
    log.append([rec('one')]);
    const end = log.logEndOffset;
    fs.appendFileSync(path.join(part.dir, `${stem(0)}.log`), Buffer.from('garbage!'));
    const { offsets } = log.append([rec('two')]);
    expect(offsets).toEqual([end]);
    expect(log.segmentBases()).toEqual([0n]);
    expect(fs.statSync(path.join(part.dir, `${stem(0)}.log`)).size).toBe(Number(log.logEndOffset));
    expect(log.read(0n, { maxRecords: 5 }).map((r) => r.value.toString())).toEqual(['one', 'two']);
  });

  it('refuses appends, reads and syncs after close', async () => {
    const log = await SegmentedLog.open(part.dir, { create: true });
    await log.close();
    expect(log.append([rec('x')]).error).toBeInstanceOf(StorageError);
    expect(() => log.read(0n, { maxRecords: 1 })).toThrow(StorageError);
    await expect(log.sync()).rejects.toBeInstanceOf(StorageError);
  });
});

describe('SegmentedLog time index and offsetForTimestamp', () => {
  it('indexes the first record of a segment, then only ≥ 4096 bytes on, and never a timestamp going backwards', async () => {
    const log = await openLog();
    // 1,029-byte records: positions 0, 1029, … so every fourth record is 4,116 bytes past the last indexed one.
    const records = Array.from({ length: 12 }, (_, i) => rec(Buffer.alloc(1000), T0 + BigInt(i) * 10n));
    records[8] = rec(Buffer.alloc(1000), T0 - 5n);
    log.append(records);
    log.append([rec(Buffer.alloc(1000), T0 + 1000n)]);
    await log.close();
    const entries = timeIndexEntries(part.dir, 0);
    expect(entries.map((e) => e.pos)).toEqual([0, 4116, 9261]);
    expect(entries.map((e) => e.ts)).toEqual([T0, T0 + 40n, T0 + 90n]);
    for (let i = 1; i < entries.length; i++) {
      expect(entries[i]!.pos - entries[i - 1]!.pos).toBeGreaterThanOrEqual(4096);
      expect(entries[i]!.ts >= entries[i - 1]!.ts).toBe(true);
    }
  });

  it('writes the index 16 entries at a time (the first at once); a crash loses only unwritten ones, lookups still find', async () => {
    const log = await openLog();
    // One 1,029-byte record per append: every fourth one starts 4,116 bytes past the last indexed one.
    const offsets: bigint[] = [];
    const appendOne = (i: number): void => {
      offsets.push(log.append([rec(Buffer.alloc(1000, i), T0 + BigInt(i))]).offsets[0]!);
    };
    appendOne(0);
    expect(timeIndexEntries(part.dir, 0).map((e) => e.pos)).toEqual([0]);
    for (let i = 1; i < 4 * 16; i++) appendOne(i);
    expect(timeIndexEntries(part.dir, 0)).toHaveLength(1);
    for (let i = 4 * 16; i < 4 * 20; i++) appendOne(i);
    // The 16th queued entry (record 64) wrote all 16; records 68, 72 and 76 are queued.
    expect(timeIndexEntries(part.dir, 0)).toHaveLength(17);
    // A SIGKILL now leaves the files as they are: a copy of the directory is what a restart would open.
    const crashed = path.join(part.tmp, 'crashed');
    fs.cpSync(part.dir, crashed, { recursive: true });
    const reopened = await SegmentedLog.open(crashed);
    try {
      expect(reopened.offsetForTimestamp(T0 + 77n)).toEqual({ offset: offsets[77], found: true });
      expect(reopened.offsetForTimestamp(T0 + 64n)).toEqual({ offset: offsets[64], found: true });
    } finally {
      await reopened.close();
    }
    await log.close();
    const entries = timeIndexEntries(part.dir, 0);
    expect(entries.map((e) => e.pos)).toEqual(Array.from({ length: 20 }, (_, k) => k * 4 * 1029));
    expect(entries.map((e) => e.ts)).toEqual(Array.from({ length: 20 }, (_, k) => T0 + BigInt(4 * k)));
  });

  it('finds the first record at or after a timestamp, across segments', async () => {
    const log = await openLog({ maxSegmentSize: 4000 });
    const records = Array.from({ length: 40 }, (_, i) => rec(Buffer.alloc(200, i), 1000n * BigInt(i + 1)));
    const { offsets } = log.append(records);
    expect(log.segmentCount).toBeGreaterThan(2);
    expect(log.offsetForTimestamp(0n)).toEqual({ offset: 0n, found: true });
    expect(log.offsetForTimestamp(2000n)).toEqual({ offset: offsets[1], found: true });
    expect(log.offsetForTimestamp(25_500n)).toEqual({ offset: offsets[25], found: true });
    expect(log.offsetForTimestamp(40_000n)).toEqual({ offset: offsets[39], found: true });
    expect(log.offsetForTimestamp(40_001n)).toEqual({ offset: log.logEndOffset, found: false });
  });
});

describe('SegmentedLog retention', () => {
  it('deletes whole non-active segments that started before the cutoff when the next one did too', async () => {
    let now = 1_700_000_000_123;
    const hour = 3_600_000;
    const log = await openLog({ maxSegmentSize: 100, now: () => now });
    expect(fs.readFileSync(path.join(part.dir, `${stem(0)}.meta`), 'utf8')).toBe('1700000000.123');
    const r = rec(Buffer.alloc(71));
    log.append([r]);
    now += hour;
    log.append([r]);
    now += hour;
    log.append([r]);
    expect(log.segmentBases()).toEqual([0n, 100n, 200n]);
    const start = 1_700_000_000_123;
    // Cutoff just past segment 1's start: segment 0 goes, segment 1 stays (segment 2 started after the cutoff).
    const result = await log.applyRetention(start + hour + 60_000 + 1_800_000, 1_800_000);
    expect(result).toEqual({ deletedSegments: 1, deletedBytes: 100, logStartOffset: 100n });
    expect(fs.existsSync(path.join(part.dir, `${stem(0)}.log`))).toBe(false);
    expect(fs.existsSync(path.join(part.dir, `${stem(0)}.timeindex`))).toBe(false);
    expect(fs.existsSync(path.join(part.dir, `${stem(0)}.meta`))).toBe(false);
    expect(log.logStartOffset).toBe(100n);
    // A cursor below the log start is moved up to it.
    expect(log.read(0n, { maxRecords: 5 }).map((x) => x.offset)).toEqual([100n, 200n]);
    // The active segment is never deleted, however old.
    const later = await log.applyRetention(start + 100 * hour, 1);
    expect(later.deletedSegments).toBe(1);
    expect(log.segmentBases()).toEqual([200n]);
  });

  it('falls back to the log file mtime when .meta is missing or unreadable', async () => {
    const log = await SegmentedLog.open(part.dir, { create: true, maxSegmentSize: 100 });
    log.append([rec(Buffer.alloc(71)), rec(Buffer.alloc(71))]);
    await log.close();
    fs.rmSync(path.join(part.dir, `${stem(0)}.meta`));
    fs.writeFileSync(path.join(part.dir, `${stem(100)}.meta`), 'not a number');
    const old = new Date(Date.now() - 10 * 86_400_000);
    fs.utimesSync(path.join(part.dir, `${stem(0)}.log`), old, old);
    fs.utimesSync(path.join(part.dir, `${stem(100)}.log`), old, old);
    const again = await openLog({ maxSegmentSize: 100 });
    again.append([rec('fresh')]);
    const result = await again.applyRetention(Date.now(), 7 * 86_400_000);
    expect(result.deletedSegments).toBe(1);
    expect(again.logStartOffset).toBe(100n);
  });
});

describe('SegmentedLog bad input', () => {
  it('refuses a missing partition directory with a StorageError unless asked to create it', async () => {
    await expect(SegmentedLog.open(path.join(part.tmp, 'nope', 'partition-1'))).rejects.toMatchObject({
      code: 'ERR_STORAGE',
      message: expect.stringContaining('does not exist'),
    });
    fs.writeFileSync(path.join(part.tmp, 'file'), 'x');
    await expect(SegmentedLog.open(path.join(part.tmp, 'file'))).rejects.toBeInstanceOf(StorageError);
  });

  it('refuses a maxSegmentSize above 4 GiB', async () => {
    await expect(SegmentedLog.open(part.dir, { create: true, maxSegmentSize: 5 * 1024 ** 3 })).rejects.toBeInstanceOf(
      StorageError,
    );
  });
});
