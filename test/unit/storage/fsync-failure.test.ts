/**
 * A failed fsync fences a log (issue 11, item 1), and the durable end is what fsyncs covered (item 2), seen through
 * the storage's file layer seam with the power-loss layer installed: it fails chosen fsyncs and knows which bytes
 * a power loss would keep.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogFencedError } from '../../../src/errors.js';
import { CommitLog } from '../../../src/storage/commit-log.js';
import { installFileLayer } from '../../../src/storage/file-io.js';
import type { RecordToStore } from '../../../src/storage/partition-log.js';
import { SegmentedLog } from '../../../src/storage/segmented-log.js';
import { PowerLossFs } from '../../helpers/power-loss-fs.js';
import { prng } from '../../helpers/prng.js';
import { useTempPartition } from '../../helpers/temp-partition.js';

const part = useTempPartition('crater-fsync-fail-');
let layer: PowerLossFs;
let restore: () => void;

beforeEach(() => {
  layer = new PowerLossFs(path.join(part.tmp, 'orders'));
  restore = installFileLayer(layer);
});
afterEach(() => restore());

function rec(value: string): RecordToStore {
  return { attrs: 0, timestamp: 1_700_000_000_000n, key: Buffer.from('k'), value: Buffer.from(value) };
}

function values(log: SegmentedLog | CommitLog): string[] {
  return log.read(0n, { maxRecords: 100 }).map((r) => r.value.toString());
}

describe('SegmentedLog after a failed fsync', () => {
  it('refuses every later append and sync, keeps its durable end, and a power loss then keeps only what was synced', async () => {
    const log = await part.openLog();
    expect(log.append([rec('synced')]).error).toBeUndefined();
    await log.sync();
    const durable = log.durableEndOffset;
    expect(durable).toBe(log.logEndOffset);

    layer.failFsyncs = () => true;
    const a = log.append([rec('A')]);
    expect(a.offsets).toEqual([durable]);
    await expect(log.sync()).rejects.toBeInstanceOf(LogFencedError);
    layer.failFsyncs = undefined;

    // The fsync that would work now must not vouch for A: nothing more is appended or synced.
    const b = log.append([rec('B')]);
    expect(b.offsets).toEqual([]);
    expect(b.error).toBeInstanceOf(LogFencedError);
    await expect(log.sync()).rejects.toBeInstanceOf(LogFencedError);
    expect(log.fenced?.cause).toMatchObject({ code: 'EIO' });
    expect(log.durableEndOffset).toBe(durable);
    expect(String(log.fenced?.message)).not.toContain(part.tmp);

    const image = path.join(part.tmp, 'after-power-loss');
    layer.image(image, 'drop', prng(1));
    await log.close();
    // A fenced log closes without a clean-shutdown marker, so the reopen recovers it as after a crash.
    expect(fs.existsSync(path.join(part.dir, '.clean-shutdown'))).toBe(false);
    const recovered = await SegmentedLog.open(path.join(image, 'partition-1'));
    try {
      expect(values(recovered)).toEqual(['synced']);
      expect(recovered.fenced).toBeUndefined();
    } finally {
      await recovered.close();
    }
  });

  it('moves the durable end only when an fsync completes, and at a roll', async () => {
    const log = await part.openLog({ create: true, maxSegmentSize: 64 });
    log.append([rec('one')]);
    expect(log.durableEndOffset).toBe(0n);
    await log.sync();
    const first = log.durableEndOffset;
    expect(first).toBe(log.logEndOffset);
    // The roll fsyncs the full segment, so its end is durable before any sync of the new one.
    log.append([rec('two-rolls-the-segment-over-the-64-byte-threshold')]);
    expect(log.segmentCount).toBe(2);
    expect(log.durableEndOffset).toBe(first);
    await log.sync();
    expect(log.durableEndOffset).toBe(log.logEndOffset);
    log.truncateTo(first);
    expect(log.durableEndOffset).toBe(first);
  });

  it('a failed fsync at a roll fences the log too', async () => {
    const log = await part.openLog({ create: true, maxSegmentSize: 64 });
    log.append([rec('one')]);
    layer.failFsyncs = () => true;
    const rolled = log.append([rec('two-rolls-the-segment-over-the-64-byte-threshold')]);
    expect(rolled.error).toBeInstanceOf(LogFencedError);
    expect(rolled.offsets).toEqual([]);
    layer.failFsyncs = undefined;
    expect(log.append([rec('three')]).error).toBeInstanceOf(LogFencedError);
    expect(log.durableEndOffset).toBe(0n);
  });
});

describe('CommitLog after a failed fsync', () => {
  it('refuses later appends and syncs and keeps its durable end', async () => {
    const log = CommitLog.open(part.dir);
    try {
      log.append([rec('synced')]);
      await log.sync();
      expect(log.durableEndOffset).toBe(1n);
      log.append([rec('A')]);
      expect(log.durableEndOffset).toBe(1n);
      layer.failFsyncs = () => true;
      await expect(log.sync()).rejects.toBeInstanceOf(LogFencedError);
      layer.failFsyncs = undefined;
      expect(log.append([rec('B')]).error).toBeInstanceOf(LogFencedError);
      await expect(log.sync()).rejects.toBeInstanceOf(LogFencedError);
      expect(log.durableEndOffset).toBe(1n);
      expect(values(log)).toEqual(['synced', 'A']);
    } finally {
      await log.close().catch(() => undefined);
    }
  });
});

describe('PowerLossFs', () => {
  it('keeps fsynced bytes, a prefix of the unsynced ones, or tears the last write', () => {
    fs.mkdirSync(layer.root);
    const file = path.join(layer.root, 'f');
    const fd = layer.openSync(file, 'w+');
    try {
      layer.writeSync(fd, Buffer.from('aaaa'), 0, 4, 0);
      layer.fsyncSync(fd);
      layer.writeSync(fd, Buffer.from('bbbb'), 0, 4, 4);
      layer.writeSync(fd, Buffer.from('cccc'), 0, 4, 8);
      layer.failFsyncs = () => true;
      expect(() => layer.fsyncSync(fd)).toThrow(/EIO/);
      layer.failFsyncs = undefined;
      layer.writeSync(fd, Buffer.from('dddd'), 0, 4, 12);
      layer.fsyncSync(fd);
      layer.writeSync(fd, Buffer.from('eeee'), 0, 4, 16);
    } finally {
      layer.closeSync(fd);
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('aaaabbbbccccddddeeee');
    const imageOf = (variant: 'drop' | 'prefix' | 'torn', seed: number): string => {
      const dir = path.join(part.tmp, `img-${variant}-${seed}`);
      layer.image(dir, variant, prng(seed));
      return fs.readFileSync(path.join(dir, 'f')).toString('latin1');
    };
    // The failed fsync lost b and c for good; the later good fsync covered only d, leaving a hole of zeros.
    expect(imageOf('drop', 1)).toBe('aaaa\0\0\0\0\0\0\0\0dddd');
    const seen = new Set<string>();
    for (let seed = 1; seed <= 20; seed++) seen.add(imageOf('prefix', seed));
    expect(seen).toEqual(new Set(['aaaa\0\0\0\0\0\0\0\0dddd', 'aaaa\0\0\0\0\0\0\0\0ddddeeee']));
    for (let seed = 1; seed <= 5; seed++) expect(imageOf('torn', seed)).toMatch(/^aaaa\0{8}dddde{0,3}$/);
  });
});
