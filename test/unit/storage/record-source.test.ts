import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { crc32, crc32Copy, dataViewOf } from '../../../src/protocol/crc32.js';
import { encodePayload } from '../../../src/protocol/message.js';
import { decodeProduceBatchTable } from '../../../src/protocol/messages/produce-batch-table.js';
import { type BatchRecord, ProduceBatchRequest } from '../../../src/protocol/messages/produce-batch.js';
import { encodeRecord, readRecord, recordSize } from '../../../src/storage/record.js';
import { EntryRecordsSource } from '../../../src/storage/record-source.js';
import { SegmentedLog } from '../../../src/storage/segmented-log.js';
import { prng } from '../../helpers/prng.js';
import { stem, timeIndexEntries, useTempPartition } from '../../helpers/temp-partition.js';

const T0 = 1_700_000_000_000;

/** Random records: empty and non-empty keys, empty values, some at the 65,536-byte cap. */
function randomRecords(seed: number, n: number): BatchRecord[] {
  const rnd = prng(seed);
  const bytes = (len: number): Buffer => {
    const b = Buffer.alloc(len);
    for (let i = 0; i < len; i++) b[i] = Math.floor(rnd() * 256);
    return b;
  };
  return Array.from({ length: n }, () => {
    const r = rnd();
    const keyLen = r < 0.2 ? 0 : r < 0.25 ? 65_536 : Math.floor(rnd() * 40);
    const s = rnd();
    const valueLen = s < 0.15 ? 0 : s < 0.2 ? 65_536 : Math.floor(rnd() * 3000);
    return { key: bytes(keyLen), value: bytes(valueLen) };
  });
}

/** The records as a PRODUCE_BATCH payload read back as a table, entries in list order. */
function tableOf(records: BatchRecord[]) {
  const payload = encodePayload(ProduceBatchRequest, { flags: 0, codec: 0, topic: 'orders', records });
  const t = decodeProduceBatchTable(payload)!;
  return { t, order: Uint32Array.from(records.keys()) };
}

function reference(records: BatchRecord[], timestamp: number): Buffer {
  return Buffer.concat(records.map((r) => encodeRecord({ attrs: 0, timestamp: BigInt(timestamp), ...r })));
}

describe('crc32Copy', () => {
  it('copies any range and returns the CRC crc32 gives for it, continuing a running CRC', () => {
    const rnd = prng(7);
    const src = Buffer.from(Array.from({ length: 5000 }, () => Math.floor(rnd() * 256)));
    for (let k = 0; k < 300; k++) {
      const start = Math.floor(rnd() * 2000);
      const end = start + Math.floor(rnd() * 2000);
      const at = Math.floor(rnd() * 100);
      const dst = Buffer.alloc(2200, 0xee);
      const initial = Math.floor(rnd() * 2 ** 32);
      const got = crc32Copy(dataViewOf(src), start, end, dataViewOf(dst), at, initial);
      expect(got).toBe(crc32(src.subarray(start, end), initial));
      expect(dst.subarray(at, at + end - start).equals(src.subarray(start, end))).toBe(true);
      expect(dst[at + end - start]).toBe(0xee);
      if (at > 0) expect(dst[at - 1]).toBe(0xee);
    }
  });
});

describe('EntryRecordsSource', () => {
  it.each([1, 2, 3, 4, 5])('writes the bytes encodeRecord writes, on random entries (seed %i)', (seed) => {
    const records = randomRecords(seed, 60);
    const { t, order } = tableOf(records);
    const source = new EntryRecordsSource(t, order, 0, records.length, 0, T0 + seed);
    const sizes = records.map((_, i) => source.size(i));
    expect(sizes).toEqual(records.map((r) => recordSize({ attrs: 0, timestamp: 0n, ...r })));
    const out = Buffer.alloc(sizes.reduce((a, b) => a + b, 0));
    let pos = 0;
    for (let i = 0; i < records.length; i++) {
      source.write(out, pos, i);
      pos += sizes[i]!;
    }
    expect(out.equals(reference(records, T0 + seed))).toBe(true);
    expect(readRecord(out, 0).ok).toBe(true);
  });

  it('takes the entries of order[from, to) only, in that order', () => {
    const records = randomRecords(11, 20);
    const { t } = tableOf(records);
    const order = Uint32Array.from([19, 3, 7, 7, 0, 12]);
    const source = new EntryRecordsSource(t, order, 1, 5, 0, T0);
    expect(source.count).toBe(4);
    const out = Buffer.alloc(Array.from({ length: 4 }, (_, i) => source.size(i)).reduce((a, b) => a + b, 0));
    let pos = 0;
    for (let i = 0; i < 4; i++) {
      source.write(out, pos, i);
      pos += source.size(i);
    }
    expect(out.equals(reference([records[3]!, records[7]!, records[7]!, records[0]!], T0))).toBe(true);
  });

  it('refuses attrs that need a 23-byte header or a header block, and a negative timestamp', () => {
    const { t, order } = tableOf(randomRecords(1, 2));
    expect(() => new EntryRecordsSource(t, order, 0, 2, 0x08, T0)).toThrow(RangeError);
    expect(() => new EntryRecordsSource(t, order, 0, 2, 0x10, T0)).toThrow(RangeError);
    expect(() => new EntryRecordsSource(t, order, 0, 2, 0, -1)).toThrow(RangeError);
  });
});

const part = useTempPartition('crater-record-source-');

describe('SegmentedLog.appendSource', () => {
  it('writes the same segments, offsets and time index as append, rolling in the middle of a batch', async () => {
    const records = randomRecords(21, 80).map((r) => ({ key: r.key.subarray(0, 30), value: r.value.subarray(0, 900) }));
    const { t, order } = tableOf(records);
    const fast = await SegmentedLog.open(path.join(part.tmp, 'fast'), { create: true, maxSegmentSize: 8000 });
    const slow = await SegmentedLog.open(path.join(part.tmp, 'slow'), { create: true, maxSegmentSize: 8000 });
    try {
      const half = 37;
      const a = fast.appendSource(new EntryRecordsSource(t, order, 0, half, 0, T0));
      const b = fast.appendSource(new EntryRecordsSource(t, order, half, records.length, 0, T0 + 5));
      const stored = records.map((r, i) => ({ attrs: 0, timestamp: BigInt(i < half ? T0 : T0 + 5), ...r }));
      const c = slow.append(stored.slice(0, half));
      const d = slow.append(stored.slice(half));
      expect([a.error, b.error, c.error, d.error]).toEqual([undefined, undefined, undefined, undefined]);
      expect([...a.offsets, ...b.offsets].map(BigInt)).toEqual([...c.offsets, ...d.offsets]);
      expect(fast.segmentCount).toBeGreaterThan(2);
      expect(fast.segmentBases()).toEqual(slow.segmentBases());
      for (const base of fast.segmentBases()) {
        const file = `${stem(base)}.log`;
        const got = fs.readFileSync(path.join(part.tmp, 'fast', file));
        expect(got.equals(fs.readFileSync(path.join(part.tmp, 'slow', file)))).toBe(true);
        expect(timeIndexEntries(path.join(part.tmp, 'fast'), base)).toEqual(
          timeIndexEntries(path.join(part.tmp, 'slow'), base),
        );
      }
      const read = fast.read(0n, { maxRecords: 1000, maxBytes: 1 << 30 });
      expect(read.map((r) => r.value.toString('hex'))).toEqual(records.map((r) => r.value.toString('hex')));
    } finally {
      await fast.close();
      await slow.close();
    }
  });

  it('stops at the fault limit with the offsets of the records written, like append', async () => {
    const records = randomRecords(3, 10);
    const { t, order } = tableOf(records);
    const log = await part.openLog();
    log.faults = { failAfterRecords: 4 };
    const result = log.appendSource(new EntryRecordsSource(t, order, 0, 10, 0, T0));
    expect(result.offsets).toHaveLength(4);
    expect(result.error?.message).toMatch(/injected write failure after 4 of 10/);
    expect(log.logEndOffset).toBe(BigInt(reference(records.slice(0, 4), T0).length));
  });
});
