import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommitLog } from '../../../src/storage/commit-log.js';
import { type RecordReport, inspectPaths } from '../../../src/storage/inspect/inspect.js';
import { encodeRecord } from '../../../src/storage/record.js';

const fixture = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/data-dir');
const orders = path.join(fixture, 'orders', 'partition-1');

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-inspect-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function allRecords(report: ReturnType<typeof inspectPaths>): RecordReport[] {
  return report.partitions.flatMap((p) => p.segments.flatMap((s) => s.records ?? []));
}

/** Every file under `root` with its bytes and mtime. */
function snapshot(root: string): Map<string, { bytes: Buffer; mtimeMs: number }> {
  const out = new Map<string, { bytes: Buffer; mtimeMs: number }>();
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    out.set(full, { bytes: fs.readFileSync(full), mtimeMs: fs.statSync(full).mtimeMs });
  }
  return out;
}

describe('inspectPaths on the fixture data dir', () => {
  it('finds both topics, their backends, and no findings', () => {
    const report = inspectPaths([fixture]);
    expect(report.findings).toEqual([]);
    const backends = new Map(report.partitions.map((p) => [p.topic, p.backend]));
    expect(backends.get('orders')).toBe('segmented');
    expect(backends.get('__consumer_offsets')).toBe('commitlog');
    expect(report.partitions.filter((p) => p.topic === '__consumer_offsets').map((p) => p.partition)).toEqual(
      Array.from({ length: 16 }, (_, i) => i + 1),
    );
    expect(report.summary).toMatchObject({
      partitions: 17,
      records: 10,
      codecs: { none: 8, gzip: 1, snappy: 1 },
      transactional: 1,
      control: 1,
      findings: 0,
    });
  });

  it('reports the segmented records at byte offsets across two segments', () => {
    const report = inspectPaths([orders]);
    const [part] = report.partitions;
    expect(part!.segments.map((s) => [s.base, s.recordCount, s.firstOffset, s.lastOffset])).toEqual([
      [0n, 3, 0n, 117n],
      [180n, 3, 180n, 282n],
    ]);
    expect(part!.segments.map((s) => s.timeIndex?.entries)).toEqual([1, 1]);
    const recs = allRecords(report);
    expect(recs.map((r) => r.codec)).toEqual(['none', 'gzip', 'snappy', 'none', 'none', 'none']);
    expect(recs[0]).toMatchObject({ position: 0, size: 47, timestamp: 1_700_000_000_000n, crcValid: true });
    expect(recs[0]!.timestampIso).toBe('2023-11-14T22:13:20.000Z');
    expect(recs[3]).toMatchObject({ attrs: 0x08, transactional: true, producerId: 7n, epoch: 3 });
    expect(recs[4]).toMatchObject({
      control: true,
      keySize: 0,
      controlMarker: { marker: 'COMMIT', producerId: 7n, epoch: 3 },
    });
    expect(recs[5]).toMatchObject({ hasHeaders: true, headerCount: 2 });
    expect(recs[0]!.payload).toBeUndefined();
  });

  it('decompresses values and decodes headers at the payload level', () => {
    const recs = allRecords(inspectPaths([orders], { level: 'payload' }));
    expect(recs.map((r) => r.payload!.value!.toString())).toEqual([
      'plain value',
      'gzip value, gzip value',
      'snappy value snappy value',
      'in a transaction',
      recs[4]!.payload!.value!.toString(),
      'with headers',
    ]);
    expect(recs[1]!.valueSize).not.toBe(recs[1]!.payload!.value!.length);
    expect(recs[5]!.payload!.headers.map((h) => [h.name, h.value.toString()])).toEqual([
      ['trace-id', 'abc123'],
      ['source', 'fixture'],
    ]);
  });

  it('reads the commit-log topic at message-count offsets, tombstones included', () => {
    const report = inspectPaths([path.join(fixture, '__consumer_offsets', 'partition-9')], { level: 'payload' });
    const recs = allRecords(report);
    expect(recs.map((r) => [r.offset, r.valueSize])).toEqual([
      [0n, 8],
      [1n, 0],
    ]);
    expect(report.partitions[0]!.segments[0]!.index).toMatchObject({ entries: 2, bytes: 16 });
  });

  it('inspects a single .timeindex or .log file as its segment, and keeps only segment data at that level', () => {
    const one = inspectPaths([path.join(orders, '00000000000000000180.timeindex')], { level: 'segment' });
    expect(one.partitions[0]!.segments).toHaveLength(1);
    expect(one.partitions[0]!.segments[0]).toMatchObject({ base: 180n, recordCount: 3 });
    expect(one.partitions[0]!.segments[0]!.records).toBeUndefined();
    expect(one.findings).toEqual([]);
  });

  it('streams records to onRecord instead of keeping them', () => {
    const seen: [bigint, string][] = [];
    const report = inspectPaths([orders], { onRecord: (r, seg) => seen.push([r.offset, path.basename(seg.file)]) });
    expect(seen.map((s) => s[0])).toEqual([0n, 47n, 117n, 180n, 242n, 282n]);
    expect(report.partitions[0]!.segments.every((s) => s.records === undefined)).toBe(true);
  });

  it('reads records larger than the chunk size with one bounded read each', () => {
    const recs = allRecords(inspectPaths([orders], { chunkBytes: 16 }));
    expect(recs).toHaveLength(6);
    expect(recs.every((r) => r.crcValid)).toBe(true);
  });

  it('never writes: bytes and mtimes are unchanged even for a torn commit log that recovery would truncate', async () => {
    const log = CommitLog.open(path.join(dir, 'partition-1'));
    log.append([{ attrs: 0, timestamp: 1n, key: Buffer.from('k'), value: Buffer.from('v') }]);
    await log.close();
    fs.appendFileSync(
      path.join(dir, 'partition-1', '00000000000000000000.log'),
      encodeRecord({ attrs: 0, timestamp: 2n, key: Buffer.from('k'), value: Buffer.from('w') }).subarray(0, 25),
    );
    fs.cpSync(fixture, path.join(dir, 'copy'), { recursive: true });
    const before = snapshot(dir);
    const report = inspectPaths([path.join(dir, 'copy'), path.join(dir, 'partition-1')], { level: 'payload' });
    // The torn tail is reported and left where it is.
    expect(report.findings.map((f) => [f.kind, f.position])).toEqual([['torn-record', 31]]);
    expect(report.summary.records).toBe(11);
    expect(snapshot(dir)).toEqual(before);
  });
});
