import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CorruptDataError } from '../../../src/errors.js';
import type { LogRecord, RecordToStore } from '../../../src/storage/partition-log.js';
import { stem, useTempPartition } from '../../helpers/temp-partition.js';

const T0 = 1_700_000_000_000n;

/** Plain records of assorted sizes (one larger than any first read), with transactional, header and control ones. */
function mixedRecords(): RecordToStore[] {
  const out: RecordToStore[] = [];
  for (let i = 0; i < 60; i++) {
    const value = Buffer.alloc(i === 17 ? 20_000 : (i * 37) % 300, i);
    const r: RecordToStore = { attrs: 0, timestamp: T0 + BigInt(i), key: Buffer.from(`key-${i}`), value };
    if (i % 11 === 3) r.headers = [{ name: `h${i}`, value: Buffer.from([i]) }];
    if (i % 13 === 5) Object.assign(r, { producerId: BigInt(1000 + i), epoch: i });
    if (i === 40) Object.assign(r, { attrs: 0x04, key: Buffer.alloc(0), producerId: 9n, epoch: 1 });
    out.push(r);
  }
  // A timestamp past 2^53 takes the bigint path of the inline decoder.
  out.push({ attrs: 0, timestamp: 2n ** 60n + 7n, key: Buffer.from('big'), value: Buffer.from('ts') });
  return out;
}

function view(r: LogRecord): unknown {
  return { ...r, key: r.key.toString('hex'), value: r.value.toString('hex') };
}

const part = useTempPartition('crater-segreader-');
const openLog = part.openLog;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('segment reads', () => {
  it('reads the same records whatever the read sizes, across segment rolls, after a reopen', async () => {
    let log = await openLog({ maxSegmentSize: 3_000 });
    const written = mixedRecords();
    const { offsets, error } = log.append(written);
    expect(error).toBeUndefined();
    expect(log.segmentCount).toBeGreaterThan(3);
    const all = log.read(0n, { maxRecords: 1000, maxBytes: 1 << 30 });
    expect(all.map((r) => r.offset)).toEqual(offsets);
    expect(all.map((r) => r.key.toString())).toEqual(written.map((r) => r.key.toString()));
    expect(all[17]!.value.length).toBe(20_000);
    expect(all.at(-1)!.timestamp).toBe(2n ** 60n + 7n);
    expect(all[3]!.headers).toEqual([{ name: 'h3', value: Buffer.from([3]) }]);
    expect(all[5]!.producerId).toBe(1005n);
    expect(all[40]!.attrs & 0x04).toBe(0x04);
    const expected = all.map(view);
    for (const maxRecords of [1, 2, 3, 7, 16, 59]) {
      for (const maxBytes of [1, 500, 4_096, 25_000, undefined]) {
        const got: LogRecord[] = [];
        let at = 0n;
        while (at < log.logEndOffset) {
          const batch = log.read(at, { maxRecords, maxBytes });
          expect(batch.length).toBeGreaterThan(0);
          expect(batch.length).toBeLessThanOrEqual(maxRecords);
          got.push(...batch);
          at = batch.at(-1)!.nextOffset;
        }
        expect(got.map(view)).toEqual(expected);
      }
    }
    await log.close();
    log = await openLog({ maxSegmentSize: 3_000 });
    expect(log.read(0n, { maxRecords: 1000, maxBytes: 1 << 30 }).map(view)).toEqual(expected);
  });

  it('sizes a read from the records it has seen: 250 small records after the first read take one readSync of about their size', async () => {
    const log = await openLog();
    const value = Buffer.alloc(100, 7);
    log.append(
      Array.from({ length: 1000 }, (_, i) => ({
        attrs: 0,
        timestamp: T0,
        key: Buffer.from(`k${String(i).padStart(7, '0')}`),
        value,
      })),
    );
    const first = log.read(0n, { maxRecords: 250 });
    const spy = vi.spyOn(fs, 'readSync');
    const next = log.read(first.at(-1)!.nextOffset, { maxRecords: 250 });
    expect(next).toHaveLength(250);
    expect(spy).toHaveBeenCalledTimes(1);
    const asked = (spy.mock.calls[0] as unknown[])[3] as number;
    const needed = 250 * first[0]!.size;
    expect(asked).toBeGreaterThanOrEqual(needed);
    expect(asked).toBeLessThan(needed * 1.25);
  });
});

describe('validation on read', () => {
  /** Two sealed segments and an active one, closed cleanly, so the next open walks only the active segment. */
  async function sealedLog(): Promise<{ offsets: bigint[]; file: string }> {
    const log = await openLog({ maxSegmentSize: 200 });
    const records = Array.from({ length: 6 }, (_, i) => ({
      attrs: 0,
      timestamp: T0,
      key: Buffer.from('k'),
      value: Buffer.alloc(60, i),
    }));
    const { offsets } = log.append(records);
    expect(log.segmentCount).toBeGreaterThan(2);
    await log.close();
    return { offsets, file: path.join(part.dir, `${stem(0)}.log`) };
  }

  it('checks the payload CRC of bytes this process did not write the first time it reads them', async () => {
    const { offsets, file } = await sealedLog();
    // The second record's last value byte flips on disk while the broker is down; recovery does not walk this
    // sealed segment after a clean shutdown, so the read is what notices. Nothing is cut: the bytes stay on disk.
    const bytes = fs.readFileSync(file);
    bytes[Number(offsets[2]) - 5]! ^= 0x01;
    fs.writeFileSync(file, bytes);
    const log = await openLog({ maxSegmentSize: 200 });
    expect(log.recovery.verified.map((v) => v.base)).not.toContain(0);
    expect(log.read(0n, { maxRecords: 10 }).map((r) => r.offset)).toEqual([0n]);
    expect(() => log.read(offsets[1]!, { maxRecords: 10 })).toThrow(CorruptDataError);
    expect(() => log.read(offsets[1]!, { maxRecords: 10 })).toThrow(/payload CRC/);
    expect(fs.statSync(file).size).toBe(bytes.length);
  });

  it('does not trust bytes below a verified range that were never read themselves', async () => {
    const { offsets, file } = await sealedLog();
    const bytes = fs.readFileSync(file);
    bytes[Number(offsets[1]) - 5]! ^= 0x01;
    fs.writeFileSync(file, bytes);
    const log = await openLog({ maxSegmentSize: 200 });
    // Reading the second record first verifies it, not the first one before it.
    expect(log.read(offsets[1]!, { maxRecords: 1 })).toHaveLength(1);
    expect(() => log.read(0n, { maxRecords: 10 })).toThrow(/payload CRC/);
  });

  it('checks the header CRC of every record on every read, also of bytes it wrote itself', async () => {
    const log = await openLog();
    const { offsets } = log.append(
      Array.from({ length: 3 }, (_, i) => ({
        attrs: 0,
        timestamp: T0,
        key: Buffer.from('k'),
        value: Buffer.from([i]),
      })),
    );
    expect(log.read(0n, { maxRecords: 10 })).toHaveLength(3);
    const file = path.join(part.dir, `${stem(0)}.log`);
    const bytes = fs.readFileSync(file);
    bytes[Number(offsets[2]) + 8 + 1 + 3]! ^= 0x01;
    fs.writeFileSync(file, bytes);
    expect(log.read(0n, { maxRecords: 10 }).map((r) => r.offset)).toEqual([0n, offsets[1]]);
    expect(() => log.read(offsets[2]!, { maxRecords: 10 })).toThrow(/header CRC/);
  });

  it('trusts verified bytes only for the life of the open log: a fresh open verifies them again', async () => {
    const { offsets, file } = await sealedLog();
    const log = await openLog({ maxSegmentSize: 200 });
    expect(log.read(0n, { maxRecords: 10 }).length).toBeGreaterThan(0);
    // Once read whole, a later flip of a payload byte in the sealed segment goes unnoticed (the documented trade)...
    const bytes = fs.readFileSync(file);
    bytes[Number(offsets[1]) - 5]! ^= 0x01;
    fs.writeFileSync(file, bytes);
    expect(log.read(0n, { maxRecords: 1 })[0]!.value[59]).toBe(0 ^ 0x01);
    // ...while a fresh log over the same files verifies them again and stops at it.
    await log.close();
    const again = await openLog({ maxSegmentSize: 200 });
    expect(() => again.read(0n, { maxRecords: 10 })).toThrow(/payload CRC/);
  });
});
