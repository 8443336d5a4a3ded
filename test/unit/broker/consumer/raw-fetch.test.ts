/**
 * The FETCH fast path (storage/raw-reader.ts, fetch-poller's raw phase, run-entries.ts) against the record path it
 * stands in for: over random segmented logs, the same poll with and without `raw` must take the same records and
 * encode to the same reply bytes, whatever mix of records, limits, ceilings and segment boundaries it meets.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type PollOptions, type PollTarget, poll } from '../../../../src/broker/consumer/fetch-poller.js';
import { encodeRecordFrames } from '../../../../src/broker/consumer/record-frames.js';
import { compressValue } from '../../../../src/protocol/compression.js';
import { FrameDecoder } from '../../../../src/protocol/frame-decoder.js';
import { decodePayload } from '../../../../src/protocol/message.js';
import { RecordBatchReply } from '../../../../src/protocol/messages/fetch.js';
import { Codec, Op } from '../../../../src/protocol/opcodes.js';
import { CorruptDataError } from '../../../../src/errors.js';
import type { ReadScratch, RecordToStore } from '../../../../src/storage/partition-log.js';
import { RecordAttr, encodeControlValue } from '../../../../src/storage/record.js';
import { SegmentedLog } from '../../../../src/storage/segmented-log.js';
import { stem, useTempPartition } from '../../../helpers/temp-partition.js';

const part = useTempPartition('crater-raw-fetch-');
const correl = Buffer.alloc(16, 7);

/** A small deterministic PRNG (mulberry32), so a failure replays. */
function rng(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * n);
  };
}

/** Mostly plain records (empty keys and values, long keys among them), with now and then one the raw path declines. */
function randomRecords(r: (n: number) => number, count: number, mixed: boolean): RecordToStore[] {
  const out: RecordToStore[] = [];
  for (let i = 0; i < count; i++) {
    const key = Buffer.alloc(r(4) === 0 ? 0 : r(3) === 0 ? 33 + r(40) : 1 + r(12), 0x41 + (i % 26));
    const value = Buffer.alloc(r(5) === 0 ? 0 : r(300), i & 0xff);
    const rec: RecordToStore = { attrs: 0, timestamp: BigInt(1_700_000_000_000 + r(1_000_000)), key, value };
    const kind = mixed ? r(12) : 99;
    if (kind === 0) rec.headers = [{ name: 'h', value: Buffer.from([i & 0xff]) }];
    else if (kind === 1) Object.assign(rec, { attrs: Codec.GZIP, value: compressValue(Codec.GZIP, value) });
    else if (kind === 2) Object.assign(rec, { attrs: RecordAttr.CONTROL, value: encodeControlValue(1, 5n, 0) });
    else if (kind === 3) Object.assign(rec, { producerId: 9n, epoch: 1 });
    out.push(rec);
  }
  return out;
}

function targetsOf(logs: SegmentedLog[], cursors: bigint[], ceilings: bigint[], topic = 'orders'): PollTarget[] {
  return logs.map((log, i) => ({
    topic,
    topicBytes: Buffer.from(topic),
    partition: i + 1,
    log,
    cursor: cursors[i]!,
    ceiling: ceilings[i]!,
  }));
}

/** One scratch for every poll of the file, so its reuse across polls of any size is what the replies go through. */
const scratch: ReadScratch = { buf: Buffer.alloc(0), used: 0, demand: 0 };

/**
 * The record path's poll, the raw one, and the raw one reading into the shared scratch, with every reply shape from
 * each; returns how many records the raw poll took as runs.
 */
function expectSameReplies(targets: () => PollTarget[], opts: PollOptions): number {
  const plain = poll(targets(), opts);
  const raw = poll(targets(), { ...opts, raw: true });
  const scratched = poll(targets(), { ...opts, raw: true, scratch });
  expect(scratched.partitions.map((p) => p.nextCursor)).toEqual(plain.partitions.map((p) => p.nextCursor));
  expect(raw.total).toBe(plain.total);
  expect(raw.bytes).toBe(plain.bytes);
  expect(raw.partitions.map((p) => p.nextCursor)).toEqual(plain.partitions.map((p) => p.nextCursor));
  for (const shape of [
    { batched: true, headers: false, withOk: true },
    { batched: true, headers: true, withOk: true },
    { batched: false, headers: false, withOk: false },
  ]) {
    const got = encodeRecordFrames(correl, raw.partitions, shape);
    const want = encodeRecordFrames(correl, plain.partitions, shape);
    // Buffer#equals, not toEqual: a deep diff of replies this size takes seconds.
    expect(got.equals(want), `${JSON.stringify(shape)}: first difference at ${firstDifference(got, want)}`).toBe(true);
    const viaScratch = encodeRecordFrames(correl, scratched.partitions, shape);
    expect(viaScratch.equals(want), `scratch ${JSON.stringify(shape)}: at ${firstDifference(viaScratch, want)}`).toBe(
      true,
    );
  }
  return raw.partitions.reduce((n, p) => n + (p.runs ?? []).reduce((m, run) => m + run.count, 0), 0);
}

function firstDifference(a: Buffer, b: Buffer): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return i;
  return Math.min(a.length, b.length);
}

/** The record starts of a log (what cursors and ceilings may be). */
function startsOf(log: SegmentedLog): bigint[] {
  return [...log.read(0n, { maxRecords: 1_000_000, maxBytes: 1 << 30 }).map((rec) => rec.offset), log.logEndOffset];
}

describe('raw FETCH path', () => {
  it('takes the same records as the record path and encodes byte-identical replies, over random logs', async () => {
    let viaRuns = 0;
    for (let seed = 1; seed <= 8; seed++) {
      const r = rng(seed);
      const logs: SegmentedLog[] = [];
      for (let p = 0; p < 1 + (seed % 3); p++) {
        const dir = path.join(part.tmp, `s${seed}`, `partition-${p + 1}`);
        const log = await SegmentedLog.open(dir, { create: true, maxSegmentSize: 2048 + r(6000) });
        logs.push(log);
        log.append(randomRecords(r, 40 + r(120), seed % 2 === 0));
        if (seed % 4 === 0) break;
      }
      const starts = logs.map(startsOf);
      for (let round = 0; round < 16; round++) {
        const cursors = starts.map((s) => s[r(s.length)]!);
        const ceilings = starts.map((s, i) => (r(3) === 0 ? s[r(s.length)]! : logs[i]!.logEndOffset));
        const maxRecords = 1 + r(r(2) === 0 ? 10 : 400);
        const opts: PollOptions = {
          maxRecords,
          allowance: Math.max(1, Math.ceil(maxRecords / logs.length)),
          maxBytes: r(2) === 0 ? 1 + r(3000) : 1 << 20,
          framed: r(4) !== 0,
        };
        // Topic lengths 1, 6 and 200: the in-place rewrite's room per record grows with the topic (run-entries.ts).
        const topic = ['o', 'orders', 't'.repeat(200)][seed % 3]!;
        viaRuns += expectSameReplies(() => targetsOf(logs, cursors, ceilings, topic), opts);
      }
      for (const log of logs) await log.close();
    }
    expect(viaRuns).toBeGreaterThan(1000);
  });

  it('reads into the scratch from the second poll on, sized by what the first wanted, and starts it over each poll', async () => {
    const log = await part.openLog({ create: true });
    log.append(randomRecords(rng(3), 200, false));
    const own: ReadScratch = { buf: Buffer.alloc(0), used: 0, demand: 0 };
    const opts: PollOptions = { maxRecords: 100, allowance: 100, maxBytes: 1 << 20, framed: true, raw: true };
    const first = poll(targetsOf([log], [0n], [log.logEndOffset]), { ...opts, scratch: own });
    expect(first.partitions[0]!.runs![0]!.buf).not.toBe(own.buf);
    expect(own.demand).toBeGreaterThan(0);
    const next = first.partitions[0]!.nextCursor;
    const second = poll(targetsOf([log], [next], [log.logEndOffset]), { ...opts, scratch: own });
    const run = second.partitions[0]!.runs![0]!;
    expect(run.buf).toBe(own.buf);
    expect([run.start, own.used]).toEqual([0, run.end]);
    expect(second.total).toBe(100);
    const stored = log.read(next, { maxRecords: 100, maxBytes: 1 << 20 });
    const frames = new FrameDecoder().push(
      encodeRecordFrames(correl, second.partitions, { batched: true, headers: false, withOk: true }),
    );
    const decoded = decodePayload(RecordBatchReply, frames[0]!.payload).records;
    expect(decoded.map((d) => [d.offset, d.key, d.value])).toEqual(stored.map((s) => [s.offset, s.key, s.value]));
  });

  it('serves a segment boundary inside one FETCH as one run per segment, the same bytes as the record path', async () => {
    const log = await part.openLog({ create: true, maxSegmentSize: 1024 });
    log.append(randomRecords(rng(99), 60, false));
    expect(log.segmentCount).toBeGreaterThan(3);
    const targets = () => targetsOf([log], [0n], [log.logEndOffset]);
    const raw = poll(targets(), { maxRecords: 60, allowance: 60, maxBytes: 1 << 20, framed: true, raw: true });
    expect(raw.total).toBe(60);
    expect(raw.partitions[0]!.runs!.length).toBeGreaterThan(3);
    expectSameReplies(targets, { maxRecords: 60, allowance: 60, maxBytes: 1 << 20, framed: true });
    const frames = new FrameDecoder().push(
      encodeRecordFrames(correl, raw.partitions, { batched: true, headers: false, withOk: true }),
    );
    expect(frames.map((f) => f.op)).toEqual([Op.RECORD_BATCH, Op.OK]);
    const decoded = decodePayload(RecordBatchReply, frames[0]!.payload).records;
    const stored = log.read(0n, { maxRecords: 100, maxBytes: 1 << 20 });
    expect(decoded.map((d) => [d.offset, d.timestamp, d.key, d.value])).toEqual(
      stored.map((s) => [s.offset, s.timestamp, s.key, s.value]),
    );
  });

  it('after a restart, verifies what it reads: a flipped payload byte ends the reply before it, and a read at it fails', async () => {
    const first = await part.openLog({ create: true, maxSegmentSize: 4096 });
    const { offsets } = first.append(randomRecords(rng(5), 80, false));
    await first.close();
    const file = path.join(part.dir, `${stem(0)}.log`);
    const bytes = fs.readFileSync(file);
    const bad = 6;
    bytes[Number(offsets[bad + 1]!) - 5]! ^= 0x10; // the last payload byte (or key byte) of record `bad`
    fs.writeFileSync(file, bytes);
    const log = await part.openLog({ maxSegmentSize: 4096 });
    const opts: PollOptions = { maxRecords: 80, allowance: 80, maxBytes: 1 << 20, framed: true, raw: true };
    const before = poll(targetsOf([log], [0n], [log.logEndOffset]), opts);
    expect(before.total).toBe(bad);
    expect(before.partitions[0]!.nextCursor).toBe(offsets[bad]);
    expect(() => poll(targetsOf([log], [offsets[bad]!], [log.logEndOffset]), opts)).toThrow(CorruptDataError);
    // The records past it are still served to a cursor beyond it.
    const after = poll(targetsOf([log], [offsets[bad + 1]!], [log.logEndOffset]), opts);
    expect(after.total).toBe(80 - bad - 1);
  });

  it('checks the header CRC of records it wrote itself on every read', async () => {
    const log = await part.openLog({ create: true });
    const { offsets } = log.append(randomRecords(rng(8), 10, false));
    const file = path.join(part.dir, `${stem(0)}.log`);
    const bytes = fs.readFileSync(file);
    bytes[Number(offsets[4]!) + 8 + 1 + 3]! ^= 0x01;
    fs.writeFileSync(file, bytes);
    const opts: PollOptions = { maxRecords: 10, allowance: 10, maxBytes: 1 << 20, framed: true, raw: true };
    expect(poll(targetsOf([log], [0n], [log.logEndOffset]), opts).total).toBe(4);
    expect(() => poll(targetsOf([log], [offsets[4]!], [log.logEndOffset]), opts)).toThrow(/header CRC/);
  });
});
