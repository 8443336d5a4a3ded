import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { StorageError } from '../../../src/errors.js';
import type { RecordToStore } from '../../../src/storage/partition-log.js';
import { encodeRecord, recordSize } from '../../../src/storage/record.js';
import { SegmentedLog } from '../../../src/storage/segmented-log.js';
import { stem, useTempPartition } from '../../helpers/temp-partition.js';

const T0 = 1_700_000_000_000n;

function rec(value: Buffer | string, timestamp = T0): RecordToStore {
  return { attrs: 0, timestamp, key: Buffer.alloc(0), value: typeof value === 'string' ? Buffer.from(value) : value };
}

const part = useTempPartition('crater-recovery-', {});
const openLog = part.openLog;

/** Writes records through a log and closes it, then removes the clean-shutdown marker: what a crash leaves. */
async function writeThenCrash(
  records: RecordToStore[],
  options: { maxSegmentSize?: number; checkpoint?: number } = {},
): Promise<bigint[]> {
  const log = await SegmentedLog.open(part.dir, { create: true, ...options });
  const { offsets } = log.append(records);
  await log.close();
  fs.rmSync(path.join(part.dir, '.clean-shutdown'));
  if (options.checkpoint !== undefined)
    fs.writeFileSync(path.join(part.dir, 'recovery-checkpoint'), String(options.checkpoint));
  return offsets;
}

function timeIndexPositions(base: number): number[] {
  const buf = fs.readFileSync(path.join(part.dir, `${stem(base)}.timeindex`));
  expect(buf.length % 12).toBe(0);
  const out: number[] = [];
  for (let p = 0; p < buf.length; p += 12) out.push(buf.readUInt32BE(p + 8));
  return out;
}

describe('segmented recovery', () => {
  it('crash table: a last record cut at every byte loses only that record; LEO and time index follow', async () => {
    // Two 4,129-byte records then a 129-byte one at 8,258: all three are indexed (each ≥ 4,096 past the last).
    const records = [rec(Buffer.alloc(4100, 1)), rec(Buffer.alloc(4100, 2)), rec(Buffer.alloc(100, 3))];
    const offsets = await writeThenCrash(records, { checkpoint: 0 });
    const lastStart = Number(offsets[2]);
    const lastSize = recordSize(records[2]!);
    expect(timeIndexPositions(0)).toEqual([0, 4129, 8258]);
    const logFile = path.join(part.dir, `${stem(0)}.log`);
    const whole = fs.readFileSync(logFile);
    const indexFile = path.join(part.dir, `${stem(0)}.timeindex`);
    const wholeIndex = fs.readFileSync(indexFile);
    for (let cut = 0; cut <= lastSize; cut++) {
      fs.writeFileSync(logFile, whole.subarray(0, lastStart + cut));
      fs.writeFileSync(indexFile, wholeIndex);
      fs.rmSync(path.join(part.dir, '.clean-shutdown'), { force: true });
      fs.writeFileSync(path.join(part.dir, 'recovery-checkpoint'), '0');
      const log = await SegmentedLog.open(part.dir);
      const kept = cut === lastSize ? 3 : 2;
      const expectedLeo = kept === 3 ? lastStart + lastSize : lastStart;
      expect(log.logEndOffset, `cut ${cut}`).toBe(BigInt(expectedLeo));
      expect(log.read(0n, { maxRecords: 10 }).map((r) => r.value[0])).toEqual([1, 2, 3].slice(0, kept));
      expect(fs.statSync(logFile).size).toBe(expectedLeo);
      expect(timeIndexPositions(0)).toEqual([0, 4129, 8258].slice(0, kept));
      // The recovered log appends where the whole records end.
      expect(log.append([rec('after')]).offsets).toEqual([BigInt(expectedLeo)]);
      await log.close();
    }
  });

  it('after an unclean stop, cuts a sealed segment at a bad CRC; later segments stay and readers skip the gap', async () => {
    const records = Array.from({ length: 9 }, (_, i) => rec(Buffer.alloc(71, i)));
    await writeThenCrash(records, { maxSegmentSize: 300, checkpoint: 0 });
    // Segment 300 holds records 3, 4, 5; flip a payload byte of record 4 (at 400).
    const sealed = path.join(part.dir, `${stem(300)}.log`);
    const bytes = fs.readFileSync(sealed);
    bytes[100 + 30]! ^= 0x01;
    fs.writeFileSync(sealed, bytes);
    const log = await openLog();
    // Recovery kept record 3 of that segment and dropped 4 and 5 (everything after the bad record in the segment).
    expect(fs.statSync(sealed).size).toBe(100);
    const verified = log.recovery.verified.find((v) => v.base === 300);
    expect(verified).toMatchObject({ validSize: 100, truncatedBytes: 200 });
    expect(verified!.problem).toMatch(/payload-crc/);
    const got = log.read(0n, { maxRecords: 20 });
    expect(got.map((r) => r.value[0])).toEqual([0, 1, 2, 3, 6, 7, 8]);
    expect(got.map((r) => r.offset)).toEqual([0n, 100n, 200n, 300n, 600n, 700n, 800n]);
    expect(log.read(400n, { maxRecords: 1 })[0]!.offset).toBe(600n);
    expect(log.logEndOffset).toBe(900n);
  });

  it('after a clean stop trusts sealed segments: a bad CRC there surfaces as a corrupt read, not a truncation', async () => {
    const log0 = await SegmentedLog.open(part.dir, { create: true, maxSegmentSize: 300 });
    log0.append(Array.from({ length: 9 }, (_, i) => rec(Buffer.alloc(71, i))));
    await log0.close();
    const sealed = path.join(part.dir, `${stem(300)}.log`);
    const bytes = fs.readFileSync(sealed);
    bytes[100 + 30]! ^= 0x01;
    fs.writeFileSync(sealed, bytes);
    const log = await openLog();
    expect(fs.statSync(sealed).size).toBe(300);
    expect(log.read(300n, { maxRecords: 5 }).map((r) => r.offset)).toEqual([300n]);
    expect(() => log.read(400n, { maxRecords: 5 })).toThrow(expect.objectContaining({ code: 'ERR_CORRUPT' }));
  });

  it('verifies only from the checkpoint: sealed segments below it are left as they are', async () => {
    await writeThenCrash(
      Array.from({ length: 9 }, (_, i) => rec(Buffer.alloc(71, i))),
      { maxSegmentSize: 300 },
    );
    // The checkpoint written at close is the LEO (900), so only the active segment is looked at: from crater's
    // recovery point (the LEO too, so nothing is read), or from its start in a directory without one (MoonMQ's).
    const log = await openLog();
    expect(log.recovery.cleanShutdown).toBe(false);
    expect(log.recovery.verified.map((v) => [v.base, v.from])).toEqual([[600, 300]]);
    await log.close();
    fs.rmSync(path.join(part.dir, '.clean-shutdown'));
    fs.rmSync(path.join(part.dir, 'crater-recovery-point'));
    const moonmq = await openLog();
    expect(moonmq.recovery.verified.map((v) => [v.base, v.from])).toEqual([[600, 0]]);
  });

  it('starts verifying a sealed segment at checkpoint − base when the checkpoint falls inside it', async () => {
    await writeThenCrash(
      Array.from({ length: 9 }, (_, i) => rec(Buffer.alloc(71, i))),
      { maxSegmentSize: 300, checkpoint: 400 },
    );
    // Damage the record at 300, below the checkpoint: it was durable before the crash, so it is not re-verified.
    const sealed = path.join(part.dir, `${stem(300)}.log`);
    const bytes = fs.readFileSync(sealed);
    bytes[30]! ^= 0x01;
    fs.writeFileSync(sealed, bytes);
    const log = await openLog();
    expect(log.recovery.verified.map((v) => [v.base, v.from])).toEqual([
      [300, 100],
      [600, 0],
    ]);
    expect(fs.statSync(sealed).size).toBe(300);
  });

  it('cuts a length prefix claiming terabytes without allocating it', async () => {
    fs.mkdirSync(part.dir, { recursive: true });
    const good = encodeRecord(rec('fine'));
    const liar = Buffer.alloc(64, 0xab);
    liar.writeBigUInt64BE(0x100_0000_0000n, 0); // 1 TiB
    fs.writeFileSync(path.join(part.dir, `${stem(0)}.log`), Buffer.concat([good, liar]));
    const log = await openLog();
    expect(log.logEndOffset).toBe(BigInt(good.length));
    expect(log.recovery.verified[0]!.problem).toMatch(/short-body/);
    expect(log.read(0n, { maxRecords: 5 }).map((r) => r.value.toString())).toEqual(['fine']);
  });

  it('cuts a record whose length is below the minimum, and a tail too short for a length prefix', async () => {
    fs.mkdirSync(part.dir, { recursive: true });
    const good = encodeRecord(rec('fine'));
    const tiny = Buffer.alloc(30);
    tiny.writeBigUInt64BE(5n, 0);
    fs.writeFileSync(path.join(part.dir, `${stem(0)}.log`), Buffer.concat([good, tiny]));
    const log = await openLog();
    expect(log.logEndOffset).toBe(BigInt(good.length));
    expect(log.recovery.verified[0]!.problem).toMatch(/impossible-length/);
    await log.close();
    fs.appendFileSync(path.join(part.dir, `${stem(0)}.log`), Buffer.from([0, 0, 0]));
    fs.rmSync(path.join(part.dir, '.clean-shutdown'));
    const again = await openLog();
    expect(again.logEndOffset).toBe(BigInt(good.length));
    expect(again.recovery.verified[0]!.problem).toMatch(/short-length-prefix/);
  });

  it('drops a partial trailing time-index entry and entries at or past the verified size', async () => {
    const records = [rec(Buffer.alloc(4100, 1)), rec(Buffer.alloc(4100, 2))];
    await writeThenCrash(records, { checkpoint: 0 });
    const indexFile = path.join(part.dir, `${stem(0)}.timeindex`);
    const entryPastEnd = Buffer.alloc(12);
    entryPastEnd.writeBigUInt64BE(T0 + 5n, 0);
    entryPastEnd.writeUInt32BE(999_999, 8);
    fs.appendFileSync(indexFile, Buffer.concat([entryPastEnd, Buffer.from([1, 2, 3, 4, 5])]));
    const log = await openLog();
    expect(fs.statSync(indexFile).size).toBe(24);
    expect(timeIndexPositions(0)).toEqual([0, 4129]);
    expect(log.offsetForTimestamp(T0)).toEqual({ offset: 0n, found: true });
  });

  it('opens an empty segment file and a missing time index, and appends from the segment base', async () => {
    fs.mkdirSync(part.dir, { recursive: true });
    fs.writeFileSync(path.join(part.dir, `${stem(0)}.log`), '');
    const log = await openLog();
    expect(log.logEndOffset).toBe(0n);
    expect(log.read(0n, { maxRecords: 5 })).toEqual([]);
    expect(log.append([rec('first')]).offsets).toEqual([0n]);
    expect(log.read(0n, { maxRecords: 5 })).toHaveLength(1);
  });

  it('ignores files that are not segments, and refuses a segment name that is not a file', async () => {
    fs.mkdirSync(part.dir, { recursive: true });
    fs.writeFileSync(path.join(part.dir, 'notes.log'), 'hello');
    fs.writeFileSync(path.join(part.dir, '123.log'), 'hello');
    fs.writeFileSync(path.join(part.dir, 'recovery-checkpoint'), 'not a number');
    const log = await openLog();
    expect(log.segmentBases()).toEqual([0n]);
    expect(log.append([rec('x')]).offsets).toEqual([0n]);
    await log.close();
    expect(fs.readFileSync(path.join(part.dir, 'notes.log'), 'utf8')).toBe('hello');
    fs.mkdirSync(path.join(part.dir, `${stem(5000)}.log`));
    await expect(SegmentedLog.open(part.dir)).rejects.toBeInstanceOf(StorageError);
  });

  it('refuses overlapping segments with a StorageError that names them', async () => {
    fs.mkdirSync(part.dir, { recursive: true });
    fs.writeFileSync(
      path.join(part.dir, `${stem(0)}.log`),
      Buffer.concat([encodeRecord(rec('a')), encodeRecord(rec('b'))]),
    );
    fs.writeFileSync(path.join(part.dir, `${stem(10)}.log`), encodeRecord(rec('c')));
    fs.writeFileSync(path.join(part.dir, '.clean-shutdown'), '1');
    await expect(SegmentedLog.open(part.dir)).rejects.toMatchObject({
      code: 'ERR_STORAGE',
      message: expect.stringContaining('past the next'),
    });
  });
});
