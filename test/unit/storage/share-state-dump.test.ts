/**
 * `dumpShareState` (the decoder behind `crater share state`) over real commit logs of `__share_group_state` written
 * with CommitLog: the compacted last-wins view and its tombstones, the history view, the group filter, and every
 * kind of finding (an undecodable key, config or snapshot, a corrupt record, a torn tail, a dir with no share state).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommitLog, segmentFileName } from '../../../src/storage/commit-log.js';
import {
  RecordState,
  SHARE_STATE_TOPIC,
  ShareStateKind,
  encodeGroupConfig,
  encodeShareStateKey,
  encodeSnapshot,
} from '../../../src/storage/share-state-codec.js';
import { dumpShareState } from '../../../src/storage/share-state-dump.js';

let dataDir = '';
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-share-dump-'));
});
afterEach(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const partitionKey = (group: string, topic: string, partition: number) =>
  encodeShareStateKey({ kind: ShareStateKind.PARTITION, group, topic, partition });
const configKey = (group: string) => encodeShareStateKey({ kind: ShareStateKind.CONFIG, group });

async function writePartition(partition: number, records: Array<[Buffer, Buffer]>): Promise<string> {
  const dir = path.join(dataDir, SHARE_STATE_TOPIC, `partition-${partition}`);
  fs.mkdirSync(dir, { recursive: true });
  const log = CommitLog.open(dir);
  try {
    const { error } = log.append(records.map(([key, value]) => ({ attrs: 0, timestamp: 1n, key, value })));
    expect(error).toBeUndefined();
    await log.sync();
  } finally {
    await log.close();
  }
  return path.join(dir, segmentFileName(0n, '.log'));
}

describe('dumpShareState', () => {
  it('compacts to the last record per key, drops tombstoned keys, names record states', async () => {
    await writePartition(1, [
      [partitionKey('g', 't', 1), encodeSnapshot({ spso: 0n, speo: 5n, runs: [] })],
      [configKey('g'), encodeGroupConfig([['auto.offset.reset', 'earliest']])],
      [
        partitionKey('g', 't', 1),
        encodeSnapshot({
          spso: 2n,
          speo: 6n,
          runs: [
            { first: 2n, last: 2n, records: 1, state: RecordState.ACQUIRED, deliveryCount: 1 },
            { first: 3n, last: 3n, records: 1, state: RecordState.ACKNOWLEDGED, deliveryCount: 2 },
            { first: 4n, last: 5n, records: 2, state: RecordState.ACQUIRED, deliveryCount: 1 },
          ],
        }),
      ],
      [partitionKey('h', 't', 2), encodeSnapshot({ spso: 0n, speo: 1n, runs: [] })],
      [partitionKey('h', 't', 2), Buffer.alloc(0)],
    ]);
    const report = dumpShareState([dataDir]);
    expect(report.findings).toEqual([]);
    expect(report.view).toBe('compacted');
    expect(report.summary).toEqual({ records: 5, groups: 1, sharePartitions: 1, findings: 0 });
    expect(report.entries).toEqual([
      {
        internalPartition: 1,
        offset: 1n,
        group: 'g',
        kind: 'config',
        config: { 'auto.offset.reset': 'earliest' },
        detail: 'auto.offset.reset=earliest',
      },
      {
        internalPartition: 1,
        offset: 2n,
        group: 'g',
        topic: 't',
        partition: 1,
        kind: 'partition',
        spso: 2n,
        speo: 6n,
        runs: [
          { first: 2n, last: 2n, records: 1, state: 'acquired', deliveryCount: 1 },
          { first: 3n, last: 3n, records: 1, state: 'acknowledged', deliveryCount: 2 },
          { first: 4n, last: 5n, records: 2, state: 'acquired', deliveryCount: 1 },
        ],
        detail: 'spso 2 speo 6 in-flight 4 acquired 3 acknowledged 1',
      },
    ]);

    const history = dumpShareState([path.join(dataDir, SHARE_STATE_TOPIC)], { history: true, group: 'h' });
    expect(history.view).toBe('history');
    expect(history.entries.map((e) => [e.offset, e.kind, e.detail])).toEqual([
      [3n, 'partition', 'spso 0 speo 1 in-flight 0'],
      [4n, 'tombstone', 'tombstone'],
    ]);
  });

  it('reports keys, configs and snapshots that fit no layout, and keeps going', async () => {
    const file = await writePartition(2, [
      [Buffer.from([9, 0, 1, 0x67]), Buffer.from('x')],
      [configKey('g'), Buffer.from([0x01, 0xff])],
      [partitionKey('g', 't', 1), encodeSnapshot({ spso: 5n, speo: 3n, runs: [] })],
      [configKey('ok'), encodeGroupConfig([])],
    ]);
    const report = dumpShareState([dataDir], { history: true });
    expect(report.entries.map((e) => e.kind)).toEqual(['undecodable', 'undecodable', 'undecodable', 'config']);
    expect(report.entries[0]).toMatchObject({ group: '', detail: 'key 09000167', internalPartition: 2 });
    expect(report.findings.map((f) => [f.kind, f.file, f.offset])).toEqual([
      ['undecodable', file, 0n],
      ['undecodable', file, 1n],
      ['undecodable', file, 2n],
    ]);
    expect(report.findings[0]!.message).toMatch(/^key: /u);
    expect(report.findings[1]!.message).toMatch(/^config of 'g': /u);
    expect(report.findings[2]!.message).toMatch(/^snapshot of 'g' t\/1: .*spso 5 is past speo 3/u);
    expect(report.summary.findings).toBe(3);
  });

  it('a flipped byte is a corrupt record, a cut tail a truncated log', async () => {
    const file = await writePartition(3, [
      [configKey('a'), encodeGroupConfig([['k', 'v']])],
      [configKey('b'), encodeGroupConfig([['k', 'v']])],
      [configKey('c'), encodeGroupConfig([['k', 'v']])],
    ]);
    const bytes = fs.readFileSync(file);
    const recordBytes = bytes.length / 3;
    bytes[recordBytes + recordBytes - 1]! ^= 0xff; // the second record's last value byte
    fs.writeFileSync(file, bytes.subarray(0, bytes.length - 3));
    const report = dumpShareState([file]);
    expect(report.entries.map((e) => e.group)).toEqual(['a']);
    expect(report.findings.map((f) => [f.kind, f.offset])).toEqual([
      ['corrupt-record', 1n],
      ['truncated-log', 2n],
    ]);
  });

  it('says so when a directory holds no share state', () => {
    const other = path.join(dataDir, 'orders', 'partition-1');
    fs.mkdirSync(other, { recursive: true });
    fs.writeFileSync(path.join(other, segmentFileName(0n, '.log')), '');
    const report = dumpShareState([path.join(dataDir, 'orders')]);
    expect(report.entries).toEqual([]);
    expect(report.findings).toContainEqual({
      kind: 'not-share-state',
      file: path.join(dataDir, 'orders'),
      message: `no ${SHARE_STATE_TOPIC} partitions here`,
    });
  });
});
