import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { crc32 } from '../../../src/protocol/crc32.js';
import { CommitLog } from '../../../src/storage/commit-log.js';
import { type Finding, inspectPaths } from '../../../src/storage/inspect/inspect.js';
import { type RecordToStore, encodeRecord } from '../../../src/storage/record.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-findings-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const rec = (key: string, value: string, ts = 1_700_000_000_000n): RecordToStore => ({
  attrs: 0,
  timestamp: ts,
  key: Buffer.from(key),
  value: Buffer.from(value),
});
const name = (base: number, ext: string) => `${String(base).padStart(20, '0')}${ext}`;
const R1 = encodeRecord(rec('a', '1', 10n));
const R2 = encodeRecord(rec('b', '2', 20n));

/** A segmented partition: each segment is a list of record bytes, named by its global byte base. */
function segmented(segments: Buffer[][], timeIndex?: (base: number) => Buffer): string {
  const p = path.join(dir, 'topic', 'partition-1');
  fs.mkdirSync(p, { recursive: true });
  let base = 0;
  for (const records of segments) {
    const bytes = Buffer.concat(records);
    fs.writeFileSync(path.join(p, name(base, '.log')), bytes);
    if (timeIndex) fs.writeFileSync(path.join(p, name(base, '.timeindex')), timeIndex(base));
    base += bytes.length;
  }
  return p;
}

function entry(ts: bigint, pos: number): Buffer {
  const b = Buffer.alloc(12);
  b.writeBigUInt64BE(ts, 0);
  b.writeUInt32BE(pos, 8);
  return b;
}

function kinds(findings: Finding[]): [string, string, number][] {
  return findings.map((f) => [f.kind, path.basename(f.file), f.position]);
}

describe('inspect findings (the inspected bytes are left as they are)', () => {
  it('reports a CRC mismatch and keeps reading the records the length prefix still frames', () => {
    const bad = Buffer.from(R2);
    bad[bad.length - 1]! ^= 0x01;
    const p = segmented([[R1, bad, R1]]);
    const report = inspectPaths([p]);
    expect(kinds(report.findings)).toEqual([['crc-mismatch', name(0, '.log'), R1.length]]);
    const recs = report.partitions[0]!.segments[0]!.records!;
    expect(recs.map((r) => [r.offset, r.crcValid])).toEqual([
      [0n, true],
      [BigInt(R1.length), false],
      [BigInt(R1.length + R2.length), true],
    ]);
    // The damaged record's header is still decoded leniently.
    expect(recs[1]).toMatchObject({ keySize: 1, valueSize: 1, timestamp: 20n });
  });

  it('reports a length prefix claiming terabytes as impossible, without allocating it', () => {
    const huge = Buffer.alloc(40);
    huge.writeBigUInt64BE(5n * 2n ** 40n, 0);
    const p = segmented([[R1, huge]]);
    const report = inspectPaths([p]);
    expect(kinds(report.findings)).toEqual([['impossible-length', name(0, '.log'), R1.length]]);
    expect(report.partitions[0]!.segments[0]).toMatchObject({
      recordCount: 1,
      validBytes: R1.length,
      bytes: R1.length + 40,
    });
  });

  it('reports a length below the 21-byte minimum as impossible', () => {
    const tiny = Buffer.alloc(30);
    tiny.writeBigUInt64BE(3n, 0);
    expect(kinds(inspectPaths([segmented([[tiny]])]).findings)).toEqual([['impossible-length', name(0, '.log'), 0]]);
  });

  it('reports a torn tail and trailing bytes', () => {
    expect(kinds(inspectPaths([segmented([[R1, R2.subarray(0, 20)]])]).findings)).toEqual([
      ['torn-record', name(0, '.log'), R1.length],
    ]);
    fs.rmSync(path.join(dir, 'topic'), { recursive: true });
    expect(kinds(inspectPaths([segmented([[R1, Buffer.alloc(5)]])]).findings)).toEqual([
      ['trailing-bytes', name(0, '.log'), R1.length],
    ]);
  });

  it('reports a key_len past the payload (with a valid header CRC) as a bad record', () => {
    const bad = Buffer.from(R1);
    bad.writeUInt32BE(100, 9);
    bad.writeUInt32BE(crc32(bad.subarray(8, 21)), 21);
    expect(kinds(inspectPaths([segmented([[bad, R2]])]).findings)).toEqual([['bad-record', name(0, '.log'), 0]]);
  });

  it('reports time-index entries that miss a record start, carry the wrong timestamp, or go backwards', () => {
    const p = segmented([[R1, R2]], () => Buffer.concat([entry(10n, 0), entry(20n, 5), entry(5n, R1.length)]));
    expect(kinds(inspectPaths([p]).findings)).toEqual([
      ['timeindex-backwards', name(0, '.timeindex'), 24],
      ['timeindex-misaligned', name(0, '.timeindex'), 24],
      ['timeindex-misaligned', name(0, '.timeindex'), 12],
    ]);
  });

  it('reports a truncated time index', () => {
    const p = segmented([[R1]], () => Buffer.concat([entry(10n, 0), Buffer.alloc(5)]));
    expect(kinds(inspectPaths([p]).findings)).toEqual([['timeindex-truncated', name(0, '.timeindex'), 12]]);
  });

  it('reports a segment name that does not continue the previous segment, and an empty closed segment', () => {
    const p = segmented([[R1], [R2]]);
    fs.renameSync(path.join(p, name(R1.length, '.log')), path.join(p, name(999, '.log')));
    fs.writeFileSync(path.join(p, name(5000, '.log')), Buffer.alloc(0));
    fs.writeFileSync(path.join(p, name(6000, '.log')), Buffer.alloc(0));
    expect(kinds(inspectPaths([p]).findings)).toEqual([
      ['empty-segment', name(5000, '.log'), 0],
      ['segment-discontinuity', name(999, '.log'), 0],
      ['segment-discontinuity', name(5000, '.log'), 0],
      ['segment-discontinuity', name(6000, '.log'), 0],
    ]);
  });

  it('reports a dense index that disagrees with its commit log, and overlapping commit-log segments', async () => {
    const p = path.join(dir, '__t', 'partition-1');
    const log = CommitLog.open(p);
    log.append([rec('a', '1'), rec('b', '2')]);
    await log.close();
    const index = path.join(p, name(0, '.index'));
    const bytes = fs.readFileSync(index);
    bytes.writeUInt32BE(7, 12);
    fs.writeFileSync(index, bytes);
    fs.writeFileSync(path.join(p, name(1, '.log')), R1);
    fs.writeFileSync(path.join(p, name(1, '.index')), Buffer.alloc(8));
    expect(kinds(inspectPaths([p]).findings)).toEqual([
      ['index-mismatch', name(0, '.index'), 8],
      ['segment-discontinuity', name(1, '.log'), 0],
    ]);
    // A short index is a mismatch too, reported once.
    fs.writeFileSync(index, bytes.subarray(0, 11));
    expect(kinds(inspectPaths([path.join(p, name(0, '.log'))]).findings)).toEqual([
      ['index-mismatch', name(0, '.index'), 8],
    ]);
  });

  it('accepts the gaps compaction leaves between commit-log segments', async () => {
    const p = path.join(dir, '__t', 'partition-1');
    const log = CommitLog.open(p, { segmentBytes: R1.length, cleanupPolicy: 'compact' });
    log.append([rec('a', '1'), rec('a', '2'), rec('a', '3')]);
    log.rollAndClean();
    await log.close();
    const report = inspectPaths([p]);
    expect(report.findings).toEqual([]);
    expect(report.summary.records).toBe(1);
  });

  it('reports missing paths, files that are not segments, directories with nothing to inspect, orphan indexes', () => {
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'hello');
    fs.mkdirSync(path.join(dir, 'empty'));
    const p = segmented([[R1]]);
    fs.writeFileSync(path.join(p, name(77, '.index')), Buffer.alloc(0));
    const report = inspectPaths([path.join(dir, 'missing'), path.join(dir, 'notes.txt'), path.join(dir, 'empty'), p]);
    expect(kinds(report.findings)).toEqual([
      ['missing-path', 'missing', 0],
      ['not-a-segment', 'notes.txt', 0],
      ['not-a-segment', 'empty', 0],
      ['missing-path', name(77, '.index'), 0],
    ]);
    expect(report.summary.findingsByKind).toEqual({ 'missing-path': 2, 'not-a-segment': 2 });
  });
});
