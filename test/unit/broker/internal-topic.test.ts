/** InternalTopicLogs over real commit-log partitions: counted appends, coalesced syncs, flush; replay order. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InternalTopicLogs, replayRecords } from '../../../src/broker/internal-topic.js';
import { CommitLog } from '../../../src/storage/commit-log.js';

let dir: string;
let logs: CommitLog[];

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crater-internal-'));
  logs = [1, 2].map((p) =>
    CommitLog.open(path.join(dir, `partition-${p}`), { cleanupPolicy: 'compact', segmentBytes: 1_048_576 }),
  );
});
afterEach(async () => {
  await Promise.all(logs.map((l) => l.close()));
  await fs.rm(dir, { recursive: true, force: true });
});

const rec = (key: string) => ({ attrs: 0, timestamp: 1n, key: Buffer.from(key), value: Buffer.from('v') });

describe('InternalTopicLogs', () => {
  it('a burst of writes to one partition costs at most two fsyncs, and every write is durable after', async () => {
    const set = new InternalTopicLogs(logs);
    const log = set.log(1);
    const writes = Array.from({ length: 40 }, (_, i) => {
      set.append(log, [rec(`k${i}`)]);
      return set.durable([log]);
    });
    await Promise.all(writes);
    expect(set.appended).toBe(40);
    expect(log.fsyncCount).toBeLessThanOrEqual(2);
    expect(log.fsyncCount).toBeGreaterThanOrEqual(1);
    expect(logs[1]!.fsyncCount).toBe(0);
  });

  it('a write arriving while an fsync runs waits for a follow-up fsync that started after it', async () => {
    const set = new InternalTopicLogs(logs);
    const log = set.log(2);
    set.append(log, [rec('a')]);
    const first = set.durable([log]);
    set.append(log, [rec('b')]);
    const second = set.durable([log]);
    await Promise.all([first, second, set.flush()]);
    expect(log.fsyncCount).toBe(2);
  });

  it('durable over several partitions syncs each once; log() refuses a partition the topic lacks', async () => {
    const set = new InternalTopicLogs(logs);
    set.append(set.log(1), [rec('x')]);
    set.append(set.log(2), [rec('y'), rec('z')]);
    await set.durable([set.log(1), set.log(2)]);
    expect(logs.map((l) => l.fsyncCount)).toEqual([1, 1]);
    expect(set.appended).toBe(3);
    expect(() => set.log(3)).toThrow(RangeError);
  });
});

describe('replayRecords', () => {
  it('yields every record partition by partition, front to back', () => {
    logs[1]!.append([rec('p2-a'), rec('p2-b')]);
    logs[0]!.append([rec('p1-a')]);
    const seen = [...replayRecords(logs)].map(
      ({ log, record }) => `${logs.indexOf(log as CommitLog) + 1}:${record.key.toString()}`,
    );
    expect(seen).toEqual(['1:p1-a', '2:p2-a', '2:p2-b']);
  });
});
