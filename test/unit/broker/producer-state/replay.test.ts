/**
 * Replay of `__producer_state` at broker start: the committed fixture (v1, v2, v3, tombstones, watermark) as a
 * broker sees it, unknown tags skipped, and state the broker cannot trust refused with the file and record named.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Broker } from '../../../../src/broker/broker.js';
import type { Logger } from '../../../../src/broker/core.js';
import { replayProducerState } from '../../../../src/broker/producer-state/replay.js';
import { StorageError } from '../../../../src/errors.js';
import { CommitLog, INTERNAL_SEGMENT_BYTES } from '../../../../src/storage/commit-log.js';
import {
  encodeIdentityKey,
  encodeMemoKey,
  encodeMemoValue,
  producerStatePartition,
} from '../../../../src/storage/producer-state-codec.js';
import { InitProducerIdRequest, ProducerIdReply } from '../../../../src/protocol/messages/init-producer-id.js';
import { ProduceBatchAckReply, ProduceBatchRequest } from '../../../../src/protocol/messages/produce-batch.js';
import { BatchFlag } from '../../../../src/protocol/opcodes.js';
import { RawClient } from '../../../helpers/raw-client.js';

const fixture = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../fixtures/producer-state');
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-replay-'));
  fs.cpSync(fixture, dir, { recursive: true });
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const warnings: string[] = [];
const logger: Logger = { debug() {}, info() {}, warn: (m) => void warnings.push(m), error() {} };

function openLogs(): CommitLog[] {
  return Array.from({ length: 16 }, (_, i) =>
    CommitLog.open(path.join(dir, '__producer_state', `partition-${i + 1}`), {
      segmentBytes: INTERNAL_SEGMENT_BYTES,
      cleanupPolicy: 'compact',
    }),
  );
}

async function append(key: Buffer, value: Buffer): Promise<void> {
  const logs = openLogs();
  logs[producerStatePartition(key) - 1]!.append([{ attrs: 0, timestamp: 1n, key, value }]);
  await Promise.all(logs.map((l) => l.close()));
}

describe('replayProducerState', () => {
  it('reads the fixture: last record per key wins, tombstones delete, v1/v2/v3 memos, the watermark', async () => {
    const logs = openLogs();
    try {
      const s = replayProducerState(logs, logger);
      expect(s.records).toBe(14);
      expect([...s.identities.keys()].sort()).toEqual(['app', 'legacy', 'solo']);
      expect(s.identities.get('app')).toMatchObject({ producerId: 1n, epoch: 1 });
      expect(s.memos.get(2n)).toBeUndefined();
      expect(s.memos.get(1n)?.get('orders')?.memo).toMatchObject({ version: 3, lastSeq: 2, epoch: 1 });
      expect(s.memos.get(3n)?.get('orders')?.memo).toMatchObject({ version: 1, epoch: undefined });
      expect(s.watermark).toBe(4n);
      expect(s.highestPid).toBe(4n);
    } finally {
      await Promise.all(logs.map((l) => l.close()));
    }
  });

  it('skips an unknown key tag with a warning', async () => {
    await append(Buffer.from([0x07, 0x01]), Buffer.from('whatever'));
    const logs = openLogs();
    warnings.length = 0;
    try {
      expect(replayProducerState(logs, logger).records).toBe(15);
      expect(warnings).toEqual(['skipping a __producer_state record with an unknown key tag']);
    } finally {
      await Promise.all(logs.map((l) => l.close()));
    }
  });

  it('warns of an ignored memo tail by part: a torn v3 tail leaves v2, a torn window tail leaves v3', async () => {
    const batch = { baseSeq: 0, acks: [{ partition: 1, offset: 0n }] };
    const v3 = encodeMemoValue({ lastSeq: 0, lastOffset: 0n, lastPartition: 1, epoch: 0, batch });
    const windowed = encodeMemoValue({
      ...{ lastSeq: 1, lastOffset: 1n, lastPartition: 1, epoch: 0 },
      batch,
      window: [batch],
    });
    await append(encodeMemoKey(4n, 'torn-v3'), v3.subarray(0, v3.length - 1));
    await append(encodeMemoKey(4n, 'torn-window'), windowed.subarray(0, windowed.length - 1));
    const logs = openLogs();
    warnings.length = 0;
    try {
      const s = replayProducerState(logs, logger);
      expect(s.memos.get(4n)?.get('torn-v3')?.memo.version).toBe(2);
      expect(s.memos.get(4n)?.get('torn-window')?.memo).toMatchObject({ version: 3, window: undefined });
      expect(warnings.sort()).toEqual([
        '__producer_state memo v3 tail ignored; the memo acts as v2',
        '__producer_state memo window tail ignored; the memo acts as v3 without its window',
      ]);
    } finally {
      await Promise.all(logs.map((l) => l.close()));
    }
  });

  it('refuses a memo value of the wrong length, naming the segment file and the record offset', async () => {
    const key = encodeMemoKey(4n, 'orders');
    await append(key, Buffer.alloc(12));
    const logs = openLogs();
    try {
      const file = path.join(
        dir,
        '__producer_state',
        `partition-${producerStatePartition(key)}`,
        '00000000000000000000.log',
      );
      expect(() => replayProducerState(logs, logger)).toThrow(StorageError);
      expect(() => replayProducerState(logs, logger)).toThrow(`${file} record at offset 1: memo value of 12 bytes`);
    } finally {
      await Promise.all(logs.map((l) => l.close()));
    }
  });

  it('trusts a bad record that a later record of the same key replaced', async () => {
    const key = encodeIdentityKey('solo');
    await append(key, Buffer.alloc(3));
    await append(key, Buffer.alloc(0));
    const logs = openLogs();
    try {
      expect(replayProducerState(logs, logger).identities.has('solo')).toBe(false);
    } finally {
      await Promise.all(logs.map((l) => l.close()));
    }
  });
});

describe('a broker over the fixture', () => {
  it('continues pids past the watermark, bumps epochs of known names, and dedups against the replayed v3 memo', async () => {
    const broker = await Broker.start({ dataDir: dir, port: 0 });
    const c = await RawClient.authenticated(broker.address.port);
    try {
      const init = async (producerName?: string) =>
        c.decode(ProducerIdReply, await c.request(InitProducerIdRequest, { producerName }));
      const resumed = c.decode(
        ProducerIdReply,
        await c.request(InitProducerIdRequest, { producerName: 'app', resume: { producerId: 1n, epoch: 1 } }),
      );
      expect(resumed).toEqual({ producerId: 1n, epoch: 1 });
      const records = [
        { key: Buffer.from('x'), value: Buffer.from('y') },
        { key: Buffer.from('x'), value: Buffer.from('z') },
      ];
      const dup = await c.request(ProduceBatchRequest, {
        flags: BatchFlag.IDEMPOTENT,
        codec: 0,
        topic: 'orders',
        ...resumed,
        baseSeq: 1,
        records,
      });
      expect(c.decode(ProduceBatchAckReply, dup).acks).toEqual([
        { partition: 1, offset: 36n },
        { partition: 1, offset: 73n },
      ]);
      expect(await init('app')).toEqual({ producerId: 1n, epoch: 2 });
      expect(await init('solo')).toEqual({ producerId: 4n, epoch: 1 });
      expect(await init('new')).toEqual({ producerId: 5n, epoch: 0 });
      expect(await init()).toEqual({ producerId: 6n, epoch: 0 });
    } finally {
      await c.close();
      await broker.stop();
    }
  });

  it('refuses to start on state it cannot trust', async () => {
    await append(
      encodeMemoKey(1n, 'orders'),
      encodeMemoValue({ lastSeq: 1, lastOffset: 0n, lastPartition: 1, epoch: 0 }).subarray(0, 10),
    );
    await expect(Broker.start({ dataDir: dir, port: 0 })).rejects.toThrow(
      /cannot trust __producer_state: .*partition-\d+.*\.log record at offset/,
    );
  });
});
