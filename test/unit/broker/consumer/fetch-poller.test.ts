import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type PollTarget, perPartitionAllowance, poll } from '../../../../src/broker/consumer/fetch-poller.js';
import { HandlerError } from '../../../../src/broker/handler.js';
import { compressValue } from '../../../../src/protocol/compression.js';
import { Codec } from '../../../../src/protocol/opcodes.js';
import { CommitLog } from '../../../../src/storage/commit-log.js';
import { RecordAttr, encodeControlValue } from '../../../../src/storage/record.js';

let dir: string;
const logs: CommitLog[] = [];

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crater-poller-'));
});
afterEach(async () => {
  await Promise.all(logs.splice(0).map((l) => l.close()));
  await fs.rm(dir, { recursive: true, force: true });
});

function logWith(values: string[], id = logs.length + 1): CommitLog {
  const log = CommitLog.open(path.join(dir, `p${id}`));
  logs.push(log);
  if (values.length > 0)
    log.append(
      values.map((v, i) => ({ attrs: 0, timestamp: BigInt(i), key: Buffer.from('k'), value: Buffer.from(v) })),
    );
  return log;
}

function target(log: CommitLog, partition: number, cursor = 0n): PollTarget {
  return { topic: 't', topicBytes: Buffer.from('t'), partition, log, cursor, ceiling: log.logEndOffset };
}

const opts = (maxRecords: number, partitions: number) => ({
  maxRecords,
  allowance: perPartitionAllowance(maxRecords, partitions),
  maxBytes: 1 << 20,
});

describe('perPartitionAllowance', () => {
  it('is max(1, ceil(max_records / P))', () => {
    expect(perPartitionAllowance(12, 4)).toBe(3);
    expect(perPartitionAllowance(10, 4)).toBe(3);
    expect(perPartitionAllowance(1, 4)).toBe(1);
    expect(perPartitionAllowance(0, 4)).toBe(1);
    expect(perPartitionAllowance(7, 0)).toBe(1);
  });
});

describe('poll', () => {
  it('takes at most the allowance per partition and stops at max_records in total', () => {
    const a = logWith(['a0', 'a1', 'a2', 'a3']);
    const b = logWith(['b0', 'b1', 'b2', 'b3']);
    const c = logWith(['c0']);
    const result = poll([target(a, 1), target(b, 2), target(c, 3)], opts(5, 3));
    expect(result.total).toBe(5);
    expect(result.partitions.map((p) => p.values.map(String))).toEqual([['a0', 'a1'], ['b0', 'b1'], ['c0']]);
    expect(result.partitions.map((p) => p.nextCursor)).toEqual([2n, 2n, 1n]);
  });

  it('steps over control records without counting them, and reads nothing at or past the ceiling', () => {
    const log = logWith([]);
    log.append([
      { attrs: RecordAttr.CONTROL, timestamp: 0n, key: Buffer.alloc(0), value: encodeControlValue(1, 1n, 0) },
      { attrs: 0, timestamp: 1n, key: Buffer.alloc(0), value: Buffer.from('x') },
      { attrs: 0, timestamp: 2n, key: Buffer.alloc(0), value: Buffer.from('y') },
    ]);
    const result = poll([{ ...target(log, 1), ceiling: 2n }], opts(10, 1));
    expect(result.partitions[0]!.values.map(String)).toEqual(['x']);
    expect(result.partitions[0]!.nextCursor).toBe(2n);
  });

  it('moves a cursor past the LEO back to it and reports the move even with no records', () => {
    const log = logWith(['a']);
    const result = poll([target(log, 1, 9n)], opts(10, 1));
    expect(result.total).toBe(0);
    expect(result.partitions).toEqual([expect.objectContaining({ records: [], nextCursor: 1n })]);
    expect(poll([target(log, 1, 1n)], opts(10, 1)).partitions).toEqual([]);
  });

  it('returns plaintext values; an undecodable value fails the poll with ERR 7 when nothing was collected', () => {
    const log = logWith([]);
    log.append([
      { attrs: Codec.GZIP, timestamp: 0n, key: Buffer.alloc(0), value: compressValue(Codec.GZIP, Buffer.from('zip')) },
    ]);
    log.append([{ attrs: Codec.GZIP, timestamp: 0n, key: Buffer.alloc(0), value: Buffer.from('junk') }]);
    const result = poll([target(log, 1)], opts(10, 1));
    expect(result.partitions[0]!.values.map(String)).toEqual(['zip']);
    expect(result.partitions[0]!.nextCursor).toBe(1n);
    let code: number | undefined;
    try {
      poll([target(log, 1, 1n)], opts(10, 1));
    } catch (err) {
      code = err instanceof HandlerError ? err.code : undefined;
    }
    expect(code).toBe(7);
  });

  it('stops once the byte budget is spent, still returning at least one record', () => {
    const log = logWith(['x'.repeat(100), 'y'.repeat(100), 'z']);
    const result = poll([target(log, 1)], { maxRecords: 10, allowance: 10, maxBytes: 50 });
    expect(result.total).toBe(1);
    expect(result.partitions[0]!.nextCursor).toBe(1n);
  });
});
