/**
 * `__transaction_state` replay and start-up recovery from data written straight to disk (no live producer): the
 * last record per id wins and a tombstone deletes it; a value that cannot be decoded stops the start with the id
 * named (nothing is recovered or changed then); ONGOING and PREPARE_ABORT transactions are aborted at start, with
 * an ABORT marker per participant, an abort-index entry and the data hidden from read_committed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Broker } from '../../../../src/broker/broker.js';
import { consumerRuntimeOf } from '../../../../src/broker/consumer/index.js';
import { replayTxnState } from '../../../../src/broker/transactions/txn-store.js';
import { StorageError } from '../../../../src/errors.js';
import { CommitLog, INTERNAL_SEGMENT_BYTES } from '../../../../src/storage/commit-log.js';
import { RecordAttr, decodeControlValue } from '../../../../src/storage/record.js';
import { SegmentedLog } from '../../../../src/storage/segmented-log.js';
import {
  TRANSACTION_STATE_TOPIC,
  TxnState,
  type TxnStateRecord,
  encodeTxnStateKey,
  encodeTxnStateValue,
  txnStatePartition,
} from '../../../../src/storage/txn-state-codec.js';
import { tempDataDir } from '../../../helpers/temp-broker.js';

let dir: string | undefined;
let broker: Broker | undefined;
afterEach(async () => {
  await broker?.stop();
  broker = undefined;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A data dir with topic orders:1 and an (empty) __transaction_state, as a broker leaves them. */
async function prepared(): Promise<string> {
  dir = await tempDataDir();
  const b = await Broker.start({ dataDir: dir, topics: [{ name: 'orders', partitions: 1 }] });
  await b.ensureInternalTopic(TRANSACTION_STATE_TOPIC);
  await b.stop();
  return dir;
}

function stateLog(d: string, id: string): CommitLog {
  const p = txnStatePartition(id);
  return CommitLog.open(path.join(d, TRANSACTION_STATE_TOPIC, `partition-${p}`), {
    segmentBytes: INTERNAL_SEGMENT_BYTES,
    cleanupPolicy: 'compact',
  });
}

async function writeState(d: string, id: string, values: Buffer[]): Promise<void> {
  const log = stateLog(d, id);
  log.append(values.map((value) => ({ attrs: 0, timestamp: 1n, key: encodeTxnStateKey(id), value })));
  await log.close();
}

const record = (state: number, over: Partial<TxnStateRecord> = {}): TxnStateRecord => ({
  producerId: 5n,
  epoch: 0,
  state,
  participants: [{ topic: 'orders', partition: 1, firstOffset: 0n }],
  pendingOffsets: [],
  ...over,
});

/** Three transactional records of pid 5 epoch 0 at the start of orders/1; returns the LEO after them. */
async function writeTxnData(d: string): Promise<bigint> {
  const log = await SegmentedLog.open(path.join(d, 'orders', 'partition-1'));
  log.append(
    [0, 1, 2].map((i) => ({
      attrs: 0,
      timestamp: 1n,
      key: Buffer.from(`k${i}`),
      value: Buffer.from(`v${i}`),
      producerId: 5n,
      epoch: 0,
    })),
  );
  const leo = log.logEndOffset;
  await log.close();
  return leo;
}

describe('replayTxnState', () => {
  it('keeps the last record per transaction id; a tombstone deletes the id', async () => {
    const d = await prepared();
    await writeState(d, 'a', [
      encodeTxnStateValue(record(TxnState.ONGOING)),
      encodeTxnStateValue(record(TxnState.COMPLETE_COMMIT, { participants: [] })),
    ]);
    await writeState(d, 'b', [encodeTxnStateValue(record(TxnState.ONGOING)), Buffer.alloc(0)]);
    const logs = Array.from({ length: 16 }, (_, i) =>
      CommitLog.open(path.join(d, TRANSACTION_STATE_TOPIC, `partition-${i + 1}`), {
        segmentBytes: INTERNAL_SEGMENT_BYTES,
      }),
    );
    try {
      const states = replayTxnState(logs);
      expect([...states.keys()]).toEqual(['a']);
      expect(states.get('a')!.state).toBe(TxnState.COMPLETE_COMMIT);
    } finally {
      await Promise.all(logs.map((l) => l.close()));
    }
  });

  it('refuses to start on a value it cannot decode, naming the transaction; the data is left untouched', async () => {
    const d = await prepared();
    const leo = await writeTxnData(d);
    await writeState(d, 'broken', [encodeTxnStateValue(record(TxnState.ONGOING)).subarray(0, 12)]);
    await expect(Broker.start({ dataDir: d })).rejects.toThrow(StorageError);
    await expect(Broker.start({ dataDir: d })).rejects.toThrow(/'broken'/);
    const log = await SegmentedLog.open(path.join(d, 'orders', 'partition-1'));
    expect(log.logEndOffset).toBe(leo);
    await log.close();
    expect(fs.existsSync(path.join(d, 'txn-aborts.json'))).toBe(false);
  });
});

describe('recovery at start', () => {
  it.each([
    ['ONGOING', TxnState.ONGOING],
    ['PREPARE_ABORT', TxnState.PREPARE_ABORT],
  ])(
    'aborts a transaction left %s: marker, abort-index entry, data hidden from read_committed',
    async (_name, state) => {
      const d = await prepared();
      const leo = await writeTxnData(d);
      await writeState(d, 'left', [encodeTxnStateValue(record(state))]);
      broker = await Broker.start({ dataDir: d });
      const txn = broker.transactions.get('left')!;
      expect(txn.state).toBe(TxnState.COMPLETE_ABORT);
      expect(broker.transactions.abortEntries).toEqual([
        { topic: 'orders', partition: 1, producerId: 5n, epoch: 0, first: 0n, upto: leo },
      ]);
      const log = broker.topics.requireTopic('orders').partitions[0]!;
      const stored = log.read(0n, { maxRecords: 10 });
      expect(stored).toHaveLength(4);
      expect(stored[3]!.attrs & RecordAttr.CONTROL).toBe(RecordAttr.CONTROL);
      expect(decodeControlValue(stored[3]!.value)).toEqual({ marker: 0, producerId: 5n, epoch: 0 });
      expect(broker.transactions.lso('orders', 1, log)).toBe(log.logEndOffset);
      const skip = broker.transactions.abortFilter('orders', 1)!;
      expect(stored.slice(0, 3).every((r) => skip(r.offset, r.producerId!, r.epoch!))).toBe(true);
    },
  );

  it('rolls a PREPARE_COMMIT forward: COMMIT marker, buffered offsets applied, no abort entry', async () => {
    const d = await prepared();
    await writeTxnData(d);
    const pendingOffsets = [{ group: 'g', topic: 'orders', partition: 1, offset: 9n }];
    await writeState(d, 'half', [encodeTxnStateValue(record(TxnState.PREPARE_COMMIT, { pendingOffsets }))]);
    broker = await Broker.start({ dataDir: d });
    expect(broker.transactions.get('half')!.state).toBe(TxnState.COMPLETE_COMMIT);
    expect(broker.transactions.abortEntries).toEqual([]);
    const stored = broker.topics.requireTopic('orders').partitions[0]!.read(0n, { maxRecords: 10 });
    expect(decodeControlValue(stored[3]!.value)!.marker).toBe(1);
    expect(consumerRuntimeOf(broker).offsets.get('g', 'orders', 1)).toBe(9n);
  });
});
