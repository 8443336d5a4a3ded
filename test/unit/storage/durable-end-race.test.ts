/**
 * The durable end under a truncation that lands while an fsync is running: the fsync covers only the bytes written
 * before it started, so when `truncateTo` cuts below the end it saw and appends follow, completing it must not move
 * the durable end past the cut. Checked through the power-loss layer: every record below the durable end must read
 * the same from what a power loss would leave as from the live log. The fsync's completion is held by hand (the
 * real fsync runs at once; only its callback waits), so the window is deterministic.
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommitLog } from '../../../src/storage/commit-log.js';
import { installFileLayer } from '../../../src/storage/file-io.js';
import type { LogRecord, PartitionLog, RecordToStore } from '../../../src/storage/partition-log.js';
import { SegmentedLog } from '../../../src/storage/segmented-log.js';
import { PowerLossFs } from '../../helpers/power-loss-fs.js';
import { prng } from '../../helpers/prng.js';
import { useTempPartition } from '../../helpers/temp-partition.js';

/** The power-loss layer whose async fsyncs report completion only once `release()` is called (while held). */
class HeldFsyncFs extends PowerLossFs {
  /** Async fsyncs issued while held. */
  issued = 0;
  private held: Array<() => void> | undefined;

  hold(): void {
    this.held ??= [];
  }

  release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const complete of held) complete();
  }

  override fsync(fd: number, callback: (err: NodeJS.ErrnoException | null) => void): void {
    if (this.held) this.issued++;
    super.fsync(fd, (err) => {
      if (this.held) this.held.push(() => callback(err));
      else callback(err);
    });
  }
}

const part = useTempPartition('crater-durable-race-');
let layer: HeldFsyncFs;
let restore: () => void;
let images = 0;

beforeEach(() => {
  layer = new HeldFsyncFs(path.join(part.tmp, 'orders'));
  restore = installFileLayer(layer);
});
afterEach(() => restore());

function rec(value: string): RecordToStore {
  return { attrs: 0, timestamp: 1_700_000_000_000n, key: Buffer.from('k'), value: Buffer.from(value) };
}

function below(log: PartitionLog, end: bigint): Array<[bigint, string]> {
  const records: LogRecord[] = log.read(0n, { maxRecords: 1000 });
  return records.filter((r) => r.offset < end).map((r) => [r.offset, r.value.toString()]);
}

/** Every record the log calls durable reads the same after a power loss now (only fsynced bytes kept). */
async function expectDurablePrefixSurvives(log: PartitionLog, reopen: (dir: string) => Promise<PartitionLog>) {
  const image = path.join(part.tmp, `power-loss-${++images}`);
  layer.image(image, 'drop', prng(images));
  const recovered = await reopen(path.join(image, 'partition-1'));
  try {
    expect(below(recovered, log.durableEndOffset)).toEqual(below(log, log.durableEndOffset));
  } finally {
    await recovered.close();
  }
}

const reopenSegmented = (dir: string) => SegmentedLog.open(dir);
const reopenCommitLog = (dir: string) => Promise.resolve(CommitLog.open(dir));

describe('SegmentedLog: truncateTo while an fsync is in flight', () => {
  it('completing that fsync leaves the durable end at the cut, though appends since went past the end it saw', async () => {
    const log = await part.openLog();
    const { offsets } = log.append([rec('a'), rec('b'), rec('c')]);
    layer.hold();
    const syncing = log.sync();
    expect(layer.issued).toBe(1);
    log.truncateTo(offsets[1]!);
    log.append([rec('replaces b and c, and is longer than both together')]);
    expect(log.logEndOffset).toBeGreaterThan(offsets[2]!);
    layer.release();
    await syncing;
    expect(log.durableEndOffset).toBe(offsets[1]);
    await expectDurablePrefixSurvives(log, reopenSegmented);
    // The next fsync starts after the rewrite and covers it.
    await log.sync();
    expect(log.durableEndOffset).toBe(log.logEndOffset);
    await expectDurablePrefixSurvives(log, reopenSegmented);
  });

  it('holds across a roll and a truncation that drops the rolled segment', async () => {
    const log = await part.openLog({ create: true, maxSegmentSize: 96 });
    const { offsets } = log.append([rec('a'), rec('b')]);
    layer.hold();
    const syncing = log.sync();
    const end = log.logEndOffset;
    log.append([rec('rolls: a, b and this do not fit in 96 bytes')]);
    expect(log.segmentCount).toBe(2);
    expect(log.durableEndOffset).toBe(end);
    log.truncateTo(offsets[1]!);
    expect(log.segmentCount).toBe(1);
    log.append([rec('replaces b, longer')]);
    expect(log.logEndOffset).toBeGreaterThan(end);
    layer.release();
    await syncing;
    expect(log.durableEndOffset).toBe(offsets[1]);
    await expectDurablePrefixSurvives(log, reopenSegmented);
  });

  it('holds for an fsync of a segment that the truncation deletes', async () => {
    const log = await part.openLog({ create: true, maxSegmentSize: 64 });
    log.append([rec('a')]);
    const [rolledBase] = log.append([rec('rolls over the 64-byte threshold')]).offsets;
    expect(log.segmentCount).toBe(2);
    layer.hold();
    const syncing = log.sync();
    log.truncateTo(rolledBase!);
    log.append([rec('replaces the second segment with a longer record than it held')]);
    expect(log.logEndOffset).toBeGreaterThan(rolledBase!);
    layer.release();
    await syncing;
    expect(log.durableEndOffset).toBe(rolledBase);
    await expectDurablePrefixSurvives(log, reopenSegmented);
  });
});

describe('CommitLog: truncateTo while an fsync is in flight', () => {
  it('completing that fsync leaves the durable end at the cut', async () => {
    const log = CommitLog.open(part.dir);
    try {
      log.append([rec('a'), rec('b'), rec('c')]);
      layer.hold();
      const syncing = log.sync();
      expect(layer.issued).toBe(1);
      log.truncateTo(1n);
      log.append([rec('B'), rec('C'), rec('D')]);
      layer.release();
      await syncing;
      expect(log.durableEndOffset).toBe(1n);
      await expectDurablePrefixSurvives(log, reopenCommitLog);
      await log.sync();
      expect(log.durableEndOffset).toBe(4n);
      await expectDurablePrefixSurvives(log, reopenCommitLog);
    } finally {
      await log.close();
    }
  });
});
