/**
 * The storage benchmark: the segmented log against a raw file write of the same bytes with the same fsyncs, a
 * sequential read back, and the two group-commit policies under one and under many concurrent producers.
 * Returns a report; never prints (scripts/bench-storage.js renders it).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fsyncAsync } from '../storage/file-io.js';
import type { GroupCommitPolicy } from '../storage/group-committer.js';
import type { RecordToStore } from '../storage/partition-log.js';
import { recordSize, writeRecord } from '../storage/record.js';
import { SegmentedLog } from '../storage/segmented-log.js';

export interface StorageBenchOptions {
  /** Parent for the temporary data directory (default: the OS temp dir). It is removed afterwards. */
  dir?: string;
  records?: number;
  /** Value bytes per record (the key is empty). */
  valueBytes?: number;
  /** Records per append call; one fsync follows each. */
  batchSize?: number;
  /** Concurrent producers in the group-commit run. */
  producers?: number;
  /** append(1 record) + sync() rounds per producer in the group-commit runs. */
  syncsPerProducer?: number;
  /** Timed runs of the raw, append and read paths; each figure is the median run. */
  repeats?: number;
}

export interface ThroughputFigure {
  records: number;
  bytes: number;
  seconds: number;
  recordsPerSec: number;
  mbPerSec: number;
  fsyncs: number;
}

export interface GroupCommitFigure {
  policy: GroupCommitPolicy;
  producers: number;
  syncs: number;
  fsyncs: number;
  seconds: number;
  syncsPerSec: number;
}

export interface StorageBenchReport {
  records: number;
  valueBytes: number;
  recordBytes: number;
  repeats: number;
  batchSize: number;
  rawWrite: ThroughputFigure;
  append: ThroughputFigure;
  read: ThroughputFigure;
  /** append records/s ÷ raw write records/s. */
  appendVsRaw: number;
  groupCommit: GroupCommitFigure[];
}

export async function runStorageBench(options: StorageBenchOptions = {}): Promise<StorageBenchReport> {
  const records = options.records ?? 100_000;
  const valueBytes = options.valueBytes ?? 100;
  const batchSize = options.batchSize ?? 1000;
  const producers = options.producers ?? 16;
  const syncsPerProducer = options.syncsPerProducer ?? 200;
  const repeats = Math.max(1, options.repeats ?? 5);
  const root = fs.mkdtempSync(path.join(options.dir ?? os.tmpdir(), 'crater-storage-bench-'));
  try {
    const batch: RecordToStore[] = [];
    for (let i = 0; i < batchSize; i++) {
      batch.push({
        attrs: 0,
        timestamp: BigInt(Date.now()),
        key: Buffer.alloc(0),
        value: Buffer.alloc(valueBytes, i & 0xff),
      });
    }
    const recordBytes = recordSize(batch[0]!);
    // One untimed pass of each path first, so the figures are steady-state rather than the JIT's first minutes;
    // then the paths alternate and each reports its median run, so a burst of foreign disk load hits both alike.
    const warmup = Math.min(records, 20 * batchSize);
    await benchRawWrite(path.join(root, 'warm-raw.log'), batch, warmup);
    await benchLog(path.join(root, 'warm-log'), batch, warmup);
    const raws: ThroughputFigure[] = [];
    const appends: ThroughputFigure[] = [];
    const reads: ThroughputFigure[] = [];
    for (let i = 0; i < repeats; i++) {
      raws.push(await benchRawWrite(path.join(root, `raw-${i}.log`), batch, records));
      const { append, read } = await benchLog(path.join(root, `log-${i}`), batch, records);
      appends.push(append);
      reads.push(read);
    }
    const rawWrite = median(raws);
    const append = median(appends);
    const read = median(reads);
    const groupCommit: GroupCommitFigure[] = [];
    for (const policy of ['eager', 'linger'] as const) {
      for (const n of [1, producers]) {
        groupCommit.push(
          await benchGroupCommit(path.join(root, `gc-${policy}-${n}`), policy, n, syncsPerProducer, valueBytes),
        );
      }
    }
    return {
      records,
      valueBytes,
      recordBytes,
      repeats,
      batchSize,
      rawWrite,
      append,
      read,
      appendVsRaw: append.recordsPerSec / rawWrite.recordsPerSec,
      groupCommit,
    };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

function median(runs: ThroughputFigure[]): ThroughputFigure {
  return [...runs].sort((a, b) => a.seconds - b.seconds)[runs.length >> 1]!;
}

function figure(recordCount: number, bytes: number, ns: bigint, fsyncs: number): ThroughputFigure {
  const seconds = Number(ns) / 1e9;
  return {
    records: recordCount,
    bytes,
    seconds,
    recordsPerSec: recordCount / seconds,
    mbPerSec: bytes / 1e6 / seconds,
    fsyncs,
  };
}

async function benchRawWrite(file: string, batch: RecordToStore[], records: number): Promise<ThroughputFigure> {
  const encoded = Buffer.allocUnsafe(batch.reduce((n, r) => n + recordSize(r), 0));
  let p = 0;
  for (const r of batch) p += writeRecord(encoded, p, r);
  const fd = fs.openSync(file, 'w');
  let written = 0;
  let fsyncs = 0;
  const t0 = process.hrtime.bigint();
  try {
    for (let done = 0; done < records; done += batch.length) {
      const n = Math.min(batch.length, records - done);
      const len = n === batch.length ? encoded.length : n * recordSize(batch[0]!);
      fs.writeSync(fd, encoded, 0, len, written);
      written += len;
      await fsyncAsync(fd);
      fsyncs++;
    }
  } finally {
    fs.closeSync(fd);
  }
  return figure(records, written, process.hrtime.bigint() - t0, fsyncs);
}

async function benchLog(
  dir: string,
  batch: RecordToStore[],
  records: number,
): Promise<{ append: ThroughputFigure; read: ThroughputFigure }> {
  const log = SegmentedLog.openSync(dir, { create: true });
  try {
    const t0 = process.hrtime.bigint();
    for (let done = 0; done < records; done += batch.length) {
      const n = Math.min(batch.length, records - done);
      const res = log.append(n === batch.length ? batch : batch.slice(0, n));
      if (res.error) throw res.error;
      await log.sync();
    }
    const append = figure(records, Number(log.logEndOffset), process.hrtime.bigint() - t0, log.fsyncCount);
    const t1 = process.hrtime.bigint();
    let offset = 0n;
    let count = 0;
    const leo = log.logEndOffset;
    while (offset < leo) {
      const got = log.read(offset, { maxRecords: 1000, maxBytes: 1024 * 1024 });
      if (got.length === 0) break;
      count += got.length;
      offset = got[got.length - 1]!.nextOffset;
    }
    const read = figure(count, Number(leo), process.hrtime.bigint() - t1, 0);
    return { append, read };
  } finally {
    await log.close();
  }
}

async function benchGroupCommit(
  dir: string,
  policy: GroupCommitPolicy,
  producers: number,
  rounds: number,
  valueBytes: number,
): Promise<GroupCommitFigure> {
  const log = SegmentedLog.openSync(dir, { create: true, groupCommit: { policy } });
  const record: RecordToStore = {
    attrs: 0,
    timestamp: BigInt(Date.now()),
    key: Buffer.alloc(0),
    value: Buffer.alloc(valueBytes, 7),
  };
  try {
    const t0 = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: producers }, async () => {
        for (let i = 0; i < rounds; i++) {
          const res = log.append([record]);
          if (res.error) throw res.error;
          await log.sync();
        }
      }),
    );
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const syncs = producers * rounds;
    return { policy, producers, syncs, fsyncs: log.fsyncCount, seconds, syncsPerSec: syncs / seconds };
  } finally {
    await log.close();
  }
}
