/**
 * The start-up check of the last memo per (pid, topic) against the data (verify-memos.ts), on real segmented logs
 * in a temp dir: a memo whose records are all there stays; one whose records are partly or wholly missing (a broker
 * killed inside that request's writes) has its present records truncated and is replaced by a "no ack" memo (or, for
 * a windowed producer, by its window's newest batch); one
 * whose present records are not the partition's tail refuses the start. Then the same through a whole broker.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Broker } from '../../../../src/broker/broker.js';
import type { Logger } from '../../../../src/broker/core.js';
import type { ProducerStateSnapshot } from '../../../../src/broker/producer-state/replay.js';
import { verifyLastMemos } from '../../../../src/broker/producer-state/verify-memos.js';
import { StorageError } from '../../../../src/errors.js';
import { InitProducerIdRequest, ProducerIdReply } from '../../../../src/protocol/messages/init-producer-id.js';
import { ProduceBatchAckReply, ProduceBatchRequest } from '../../../../src/protocol/messages/produce-batch.js';
import { BatchFlag } from '../../../../src/protocol/opcodes.js';
import type { MemoAck, SequenceMemo } from '../../../../src/storage/producer-state-codec.js';
import { dumpProducerState } from '../../../../src/storage/producer-state/dump.js';
import { SegmentedLog } from '../../../../src/storage/segmented-log.js';
import { RawClient } from '../../../helpers/raw-client.js';

let tmp: string;
const open: SegmentedLog[] = [];
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-verify-memos-'));
});
afterEach(async () => {
  for (const log of open.splice(0)) await log.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const warnings: string[] = [];
const logger: Logger = { debug() {}, info() {}, warn: (m) => void warnings.push(m), error() {} };

async function partitions(n: number): Promise<SegmentedLog[]> {
  const logs: SegmentedLog[] = [];
  for (let i = 1; i <= n; i++)
    logs.push(await SegmentedLog.open(path.join(tmp, 'orders', `partition-${i}`), { create: true }));
  open.push(...logs);
  return logs;
}

const rec = (v: string) => ({ attrs: 0, timestamp: 1n, key: Buffer.from('k'), value: Buffer.from(v) });

function batchMemo(baseSeq: number, acks: MemoAck[]): SequenceMemo {
  const last = acks[acks.length - 1]!;
  return {
    version: 3,
    lastSeq: baseSeq + acks.length - 1,
    lastOffset: last.offset,
    lastPartition: last.partition,
    epoch: 0,
    batch: { baseSeq, acks },
  };
}

function snapshotOf(memo: SequenceMemo): ProducerStateSnapshot {
  return {
    identities: new Map([['app', { producerId: 7n, epoch: 0, writtenAt: 1n }]]),
    memos: new Map([[7n, new Map([['orders', { memo, writtenAt: 1n }]])]]),
    watermark: undefined,
    highestPid: 7n,
    records: 2,
  };
}

/** Appends `values` to `log` and returns their acks as partition `p`. */
function land(log: SegmentedLog, p: number, values: string[]): MemoAck[] {
  return log.append(values.map(rec)).offsets.map((offset) => ({ partition: p, offset }));
}

describe('verifyLastMemos', () => {
  it('keeps a memo whose records are all present and touches no data', async () => {
    const [p1, p2] = await partitions(2);
    land(p1!, 1, ['earlier']);
    const acks = [...land(p1!, 1, ['a', 'b']), ...land(p2!, 2, ['c'])];
    const before = [p1!.logEndOffset, p2!.logEndOffset];
    expect(await verifyLastMemos(snapshotOf(batchMemo(5, acks)), () => [p1!, p2!], logger)).toEqual([]);
    expect([p1!.logEndOffset, p2!.logEndOffset]).toEqual(before);
  });

  it('a partly present batch: its present records are truncated and a "no ack" memo at base − 1 replaces it', async () => {
    const [p1, p2] = await partitions(2);
    land(p1!, 1, ['earlier']);
    const start = p1!.logEndOffset;
    const present = land(p1!, 1, ['a', 'b']);
    // The batch's record for partition 2 never got written: its predicted offset is the LEO there.
    const acks = [...present, { partition: 2, offset: p2!.logEndOffset }];
    const repairs = await verifyLastMemos(snapshotOf(batchMemo(5, acks)), () => [p1!, p2!], logger);
    expect(repairs).toHaveLength(1);
    expect(repairs[0]!.truncated).toEqual([{ partition: 1, offset: start }]);
    expect(repairs[0]!.replacement).toEqual({
      version: 2,
      lastSeq: 4,
      lastOffset: 0n,
      lastPartition: 0,
      epoch: 0,
      batch: undefined,
    });
    expect(p1!.logEndOffset).toBe(start);
    expect(p1!.read(0n, { maxRecords: 10 }).map((r) => r.value.toString())).toEqual(['earlier']);
  });

  it("a windowed memo whose own batch is missing: its window's newest batch is the memo again, the rest its window", async () => {
    const [p1, p2] = await partitions(2);
    const older = { baseSeq: 0, acks: land(p1!, 1, ['w0', 'w1']) };
    const newest = { baseSeq: 2, acks: land(p2!, 2, ['w2', 'w3']) };
    const start = p1!.logEndOffset;
    // Batch seq 4..5 died inside its writes: one record landed on partition 1, the other never on partition 2.
    const acks = [...land(p1!, 1, ['x4']), { partition: 2, offset: p2!.logEndOffset }];
    const memo = { ...batchMemo(4, acks), window: [newest, older] };
    const repairs = await verifyLastMemos(snapshotOf(memo), () => [p1!, p2!], logger);
    expect(repairs[0]!.truncated).toEqual([{ partition: 1, offset: start }]);
    expect(repairs[0]!.replacement).toEqual({ ...batchMemo(2, newest.acks), window: [older] });
    // A window whose newest batch is not right before the request (not contiguous) cannot be trusted to be it.
    const gap = { ...batchMemo(6, [{ partition: 2, offset: p2!.logEndOffset }]), window: [newest, older] };
    const [repair] = await verifyLastMemos(snapshotOf(gap), () => [p1!, p2!], logger);
    expect(repair!.replacement).toMatchObject({ version: 2, lastSeq: 5, lastPartition: 0, batch: undefined });
    expect(repair!.replacement.window).toBeUndefined();
  });

  it('a wholly absent batch at base 0: nothing to truncate, last_seq 0xFFFFFFFF (−1) and no ack', async () => {
    const [p1] = await partitions(1);
    land(p1!, 1, ['other producer']);
    const leo = p1!.logEndOffset;
    const acks = [
      { partition: 1, offset: leo },
      { partition: 1, offset: leo + 40n },
    ];
    const repairs = await verifyLastMemos(snapshotOf(batchMemo(0, acks)), () => [p1!], logger);
    expect(repairs[0]).toMatchObject({
      truncated: [],
      replacement: { lastSeq: 0xffff_ffff, lastPartition: 0, batch: undefined },
    });
    expect(p1!.logEndOffset).toBe(leo);
  });

  it('a single-record (v2) memo whose record is missing becomes "no ack" at seq − 1', async () => {
    const [p1] = await partitions(1);
    const memo: SequenceMemo = {
      version: 2,
      lastSeq: 9,
      lastOffset: p1!.logEndOffset,
      lastPartition: 1,
      epoch: 3,
      batch: undefined,
    };
    const repairs = await verifyLastMemos(snapshotOf(memo), () => [p1!], logger);
    expect(repairs[0]!.replacement).toMatchObject({ lastSeq: 8, lastPartition: 0, epoch: 3 });
  });

  it("refuses to start when the present records are not their partition's tail, naming producer, topic, partition", async () => {
    const [p1, p2] = await partitions(2);
    const present = land(p1!, 1, ['a']);
    land(p1!, 1, ['appended after the batch']);
    const acks = [...present, { partition: 2, offset: p2!.logEndOffset }];
    const run = verifyLastMemos(snapshotOf(batchMemo(0, acks)), () => [p1!, p2!], logger);
    await expect(run).rejects.toThrow(StorageError);
    await expect(verifyLastMemos(snapshotOf(batchMemo(0, acks)), () => [p1!, p2!], logger)).rejects.toThrow(
      /producer 'app' \(pid 7\), topic 'orders' partition 1: .*end at \d+ and the log goes on to \d+/,
    );
    // Refused, so nothing was taken back.
    expect(p1!.read(0n, { maxRecords: 10 })).toHaveLength(2);
  });

  it('keeps a landed memo whose ack no longer starts a record (compacted or expired): no ack is past the LEO', async () => {
    const [p1] = await partitions(1);
    const acks = land(p1!, 1, ['a', 'b']);
    const inside = { partition: 1, offset: acks[0]!.offset + 1n };
    expect(await verifyLastMemos(snapshotOf(batchMemo(0, [inside, acks[1]!])), () => [p1!], logger)).toEqual([]);
    expect(p1!.read(0n, { maxRecords: 10 })).toHaveLength(2);
  });

  it('skips memos of topics that no longer exist, with a warning', async () => {
    warnings.length = 0;
    expect(
      await verifyLastMemos(snapshotOf(batchMemo(0, [{ partition: 1, offset: 0n }])), () => undefined, logger),
    ).toEqual([]);
    expect(warnings).toHaveLength(1);
  });
});

describe('a broker restarted after a batch that did not finish', () => {
  it('takes the partial batch back, persists a "no ack" memo, and the resent batch lands exactly once', async () => {
    const dataDir = path.join(tmp, 'data');
    const records = Array.from({ length: 6 }, (_, i) => ({
      key: Buffer.from(`key-${i}`),
      value: Buffer.from(`v${i}`),
    }));
    const produce = (c: RawClient, id: { producerId: bigint; epoch: number }, baseSeq: number) =>
      c.request(ProduceBatchRequest, {
        flags: BatchFlag.IDEMPOTENT,
        codec: 0,
        topic: 'orders',
        ...id,
        baseSeq,
        records,
      });
    let broker = await Broker.start({ dataDir, port: 0, topics: [{ name: 'orders', partitions: 3 }] });
    let c = await RawClient.authenticated(broker.address.port);
    const id = c.decode(ProducerIdReply, await c.request(InitProducerIdRequest, { producerName: 'app' }));
    c.decode(ProduceBatchAckReply, await produce(c, id, 0));
    const second = c.decode(ProduceBatchAckReply, await produce(c, id, 6));
    await c.close();
    await broker.stop();
    // What a kill between two partitions' appends leaves: the memo of batch 2, its records in one partition only.
    const touched = [...new Set(second.acks.map((a) => a.partition))];
    expect(touched.length).toBeGreaterThan(1);
    for (const p of touched.slice(1)) {
      const log = await SegmentedLog.open(path.join(dataDir, 'orders', `partition-${p}`));
      log.truncateTo(second.acks.find((a) => a.partition === p)!.offset);
      await log.close();
    }
    broker = await Broker.start({ dataDir, port: 0 });
    c = undefined as unknown as RawClient;
    try {
      const state = dumpProducerState([dataDir], { against: dataDir });
      expect(state.entries.find((e) => e.kind === 'memo')?.memo).toMatchObject({
        lastSeq: 5,
        lastPartition: 0,
        noAck: true,
      });
      expect(state.findings).toEqual([]);
      c = await RawClient.authenticated(broker.address.port);
      expect(
        c.decode(ProducerIdReply, await c.request(InitProducerIdRequest, { producerName: 'app', resume: id })),
      ).toEqual(id);
      const resent = c.decode(ProduceBatchAckReply, await produce(c, id, 6));
      expect(resent.errorCode).toBe(0);
      expect(resent.acks).toEqual(second.acks);
      const stored = broker.topics
        .requireTopic('orders')
        .partitions.flatMap((l) => l.read(0n, { maxRecords: 100 }).map((r) => r.value.toString()));
      expect(stored.sort()).toEqual([...records, ...records].map((r) => r.value.toString()).sort());
    } finally {
      await c.close();
      await broker.stop();
    }
  });
});
