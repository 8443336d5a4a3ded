/**
 * The CLI's row renderers (cli/render/admin.ts, records.ts, state.ts, segments.ts, share.ts) as their plain tables
 * print them: lag arithmetic, offset units, produce summaries, byte cells, state-dump details and inspect summaries.
 */
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import {
  memberColumns,
  memberRows,
  offsetColumns,
  offsetUnit,
  offsetsJson,
  resetColumns,
  topicJson,
} from '../../../src/cli/render/admin.js';
import {
  bytesCell,
  deliveryFailureLine,
  formatRate,
  produceProgress,
  produceSummary,
  rawFrameRows,
  recordColumns,
} from '../../../src/cli/render/records.js';
import {
  recordColumns as segmentRecordColumns,
  recordJson,
  reportJson,
  segmentColumns,
  summaryLine,
} from '../../../src/cli/render/segments.js';
import { sharePartitionColumns, shareStateColumns } from '../../../src/cli/render/share.js';
import { stateEntryColumns, stateSummaryLine } from '../../../src/cli/render/state.js';
import { type Column, renderTable } from '../../../src/cli/render/table.js';
import type { Delivery } from '../../../src/cli/producing.js';
import type { RecordReport } from '../../../src/storage/inspect/types.js';
import type { StateEntry } from '../../../src/storage/producer-state/types.js';

const plain = new Chalk({ level: 0 });

function rows<T>(columns: readonly Column<T>[], data: readonly T[]): string[][] {
  return renderTable(columns, data, { tty: false, chalk: plain })
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => l.trim().split(/\s{2,}|\s(?=\S)/u));
}

function cells<T>(columns: readonly Column<T>[], row: T): Record<string, string> {
  return Object.fromEntries(columns.map((c) => [c.header, c.value(row) === undefined ? '' : String(c.value(row))]));
}

describe('admin renderers', () => {
  const offsets = {
    partitions: [
      { partition: 1, earliest: 100n, latest: 500n, highWatermark: 500n, lso: 400n, flags: 0 },
      { partition: 2, earliest: 0n, latest: 0n, highWatermark: 0n, lso: 0n, flags: 0 },
    ],
  };

  it('lag is latest minus max(committed, earliest); a group with nothing committed starts at earliest', () => {
    const groups = [
      { groupId: 'behind', state: 'Stable', members: [], offsets: [{ topic: 't', partition: 1, offset: 20n }] },
      { groupId: 'mid', state: 'Empty', members: [], offsets: [{ topic: 't', partition: 1, offset: 300n }] },
      { groupId: 'other', state: 'Empty', members: [], offsets: [{ topic: 'u', partition: 1, offset: 499n }] },
      { groupId: 'ahead', state: 'Empty', members: [], offsets: [{ topic: 't', partition: 2, offset: 9n }] },
    ];
    const json = offsetsJson(offsets, groups, 't');
    expect(json[0]!.groups).toEqual([
      { group: 'behind', committed: 20n, lag: 400n },
      { group: 'mid', committed: 300n, lag: 200n },
      { group: 'other', committed: null, lag: 400n },
      { group: 'ahead', committed: null, lag: 400n },
    ]);
    // Committed past the log end (a truncated log): never a negative lag.
    expect(json[1]!.groups.find((g) => g.group === 'ahead')).toEqual({ group: 'ahead', committed: 9n, lag: 0n });
    const table = rows(offsetColumns(['behind', 'mid'], 'records'), json);
    expect(table[0]).toEqual([
      'PARTITION',
      'EARLIEST',
      '[records]',
      'LATEST',
      '[records]',
      'HWM',
      '[records]',
      'LSO',
      '[records]',
      'LAG(behind)',
      '[records]',
      'LAG(mid)',
      '[records]',
    ]);
    expect(table[1]).toEqual(['1', '100', '500', '500', '400', '400', '200']);
  });

  it('the offset unit follows the backend config; topic JSON folds the config into an object', () => {
    const segmented = { name: 't', partitionCount: 3, config: [{ key: 'retention.ms', value: '1000' }] };
    const commitlog = { name: 'c', partitionCount: 1, config: [{ key: 'backend', value: 'commitlog' }] };
    expect(offsetUnit(segmented)).toBe('bytes');
    expect(offsetUnit(commitlog)).toBe('records');
    expect(topicJson(segmented)).toEqual({ name: 't', partitions: 3, config: { 'retention.ms': '1000' } });
  });

  it('one member row per member and topic; a reset row with nothing committed shows "-"', () => {
    const d = {
      groupId: 'g',
      state: 'Stable',
      offsets: [],
      members: [
        {
          memberId: 'm1',
          topics: [
            { topic: 'a', partitions: [1, 3] },
            { topic: 'b', partitions: [2] },
          ],
        },
        { memberId: 'm2', topics: [] },
      ],
    };
    expect(memberRows(d as never).map((r) => cells(memberColumns, r))).toEqual([
      { MEMBER: 'm1', TOPIC: 'a', PARTITIONS: '1,3' },
      { MEMBER: 'm1', TOPIC: 'b', PARTITIONS: '2' },
    ]);
    expect(cells(resetColumns, { partition: 1, current: null, target: 7n })).toEqual({
      PARTITION: '1',
      'CURRENT OFFSET': '-',
      'NEW OFFSET': '7',
    });
  });
});

describe('record renderers', () => {
  const failed = (line: number): Delivery => ({
    index: line - 1,
    source: 'in.txt',
    line,
    topic: 't',
    outcome: 'failed',
    error: { code: 'ERR_TOPIC', message: 'no such topic' },
  });

  it('a produce summary names every failed line, up to 20, then counts the rest', () => {
    expect(produceSummary('t', { records: 3, delivered: 3, failed: [], requests: 1 }, 1500, plain)).toBe(
      'produced 3 of 3 records to t in 1 request, 1.50 s',
    );
    const two = produceSummary(
      't',
      { records: 5, delivered: 3, failed: [failed(2), failed(4)], requests: 2 },
      10,
      plain,
    );
    expect(two).toMatch(/^produced 3 of 5 records to t in 2 requests, .*; 2 failed: in\.txt:2, in\.txt:4$/u);
    const many = Array.from({ length: 23 }, (_, i) => failed(i + 1));
    const text = produceSummary('t', { records: 23, delivered: 0, failed: many, requests: 1 }, 10, plain);
    expect(text).toContain('in.txt:20, … (3 more)');
    expect(text).not.toContain('in.txt:21');
    expect(deliveryFailureLine(failed(7), plain)).toBe('failed record 6 (in.txt:7): [ERR_TOPIC] no such topic');
  });

  it('a rate needs elapsed time; the progress line carries count and rate', () => {
    expect(formatRate(10, 0)).toBe('- records/s');
    expect(formatRate(3, 2000)).toBe('2 records/s');
    expect(produceProgress('t', 1500, 1000)).toBe('producing to t: 1,500 records, 1,500 records/s');
  });

  it('a byte cell is text only for clean UTF-8; control bytes and binary are tagged', () => {
    expect(bytesCell(undefined)).toBe('');
    expect(bytesCell(Buffer.from('héllo'))).toBe('héllo');
    expect(bytesCell(Buffer.from('a\tb'))).toBe(`base64:${Buffer.from('a\tb').toString('base64')}`);
    expect(bytesCell(Buffer.from([0xff, 0xfe]))).toBe('base64://4=');
    expect(bytesCell(Buffer.from('hi'), 'hex')).toBe('hex:6869');
    const cols = recordColumns();
    const row = cells(cols, {
      topic: 't',
      partition: 2,
      offset: 40n,
      timestamp: 0n,
      key: Buffer.alloc(0),
      value: Buffer.from('v'),
      headers: [{ name: 'h', value: Buffer.from([0]) }],
    });
    expect(row).toEqual({
      PARTITION: '2',
      OFFSET: '40',
      TIMESTAMP: '1970-01-01T00:00:00.000Z',
      KEY: '',
      VALUE: 'v',
      HEADERS: 'h=base64:AA==',
    });
  });

  it('raw frames name their opcode and hex their bytes', () => {
    expect(rawFrameRows([{ op: 0x01, correl: Buffer.from([1, 2]), payload: Buffer.from([0xab]) }])).toEqual([
      { op: 1, name: expect.any(String), correl: '0102', payload: 'ab' },
    ]);
  });
});

describe('state dump renderers', () => {
  const base: StateEntry = {
    kind: 'memo',
    file: 'f',
    partition: 1,
    offset: 0n,
    position: 0,
    timestamp: 0n,
    key: '',
    tombstone: false,
    valueBytes: 0,
  };
  const detail = (e: Partial<StateEntry>) => cells(stateEntryColumns(), { ...base, ...e });

  it('says what each kind of record holds', () => {
    expect(detail({ tombstone: true })).toMatchObject({ KIND: 'tombstone', DETAIL: '' });
    expect(detail({ kind: 'undecodable', problem: 'key too short' })).toMatchObject({
      KIND: 'undecodable',
      DETAIL: 'key too short',
    });
    expect(detail({ kind: 'allocator', nextPid: 9n })).toMatchObject({ KIND: 'allocator', DETAIL: 'next_pid 9' });
    expect(detail({ kind: 'identity', producerName: 'p', producerId: 3n })).toMatchObject({
      KIND: 'identity',
      PRODUCER: 'p',
      PID: '3',
      DETAIL: '',
    });
    expect(detail({ problem: 'value fits no layout' })).toMatchObject({ KIND: 'memo', DETAIL: 'value fits no layout' });
  });

  it('renders a memo: no-ack memos, v3 batches with their acks, and a problem in brackets', () => {
    const memo = { version: 2, lastSeq: 0xffff_ffff, lastOffset: 0n, lastPartition: 0, epoch: 0 } as const;
    expect(detail({ memo: { ...memo, noAck: true } as never }).DETAIL).toBe(
      'last_seq -1 (nothing yet), no ack: the request after it did not land',
    );
    expect(detail({ memo: { ...memo, lastSeq: 4, noAck: true } as never, problem: 'x' }).DETAIL).toBe(
      'last_seq 4, no ack: the request after it did not land (x)',
    );
    const v3 = {
      version: 3,
      lastSeq: 9,
      lastOffset: 70n,
      lastPartition: 2,
      epoch: 1,
      baseSeq: 8,
      acks: [
        { partition: 1, offset: 10n },
        { partition: 2, offset: 70n },
      ],
    };
    expect(detail({ memo: v3 as never, problem: 'ack 1@10 not in the log' })).toMatchObject({
      KIND: 'memo v3',
      DETAIL: 'last_seq 9 at 2@70; batch 8..9: 1@10 2@70 (ack 1@10 not in the log)',
    });
  });

  it('the summary counts findings and checked acks', () => {
    const s = {
      records: 3,
      shown: 2,
      identities: 1,
      memos: 1,
      tombstones: 0,
      memoVersions: { v3: 1 },
      nextPid: 5n,
      acksChecked: 2,
      findings: 1,
    };
    expect(stateSummaryLine(s as never, 'compacted', plain)).toBe(
      '3 record(s), 2 shown (compacted); 1 producer(s), 1 memo(s) (v3 1), 0 tombstone(s); next_pid 5; ' +
        '2 ack(s) checked; 1 finding',
    );
    expect(
      stateSummaryLine(
        { ...s, memoVersions: {}, nextPid: undefined, acksChecked: 0, findings: 0 } as never,
        'all',
        plain,
      ),
    ).toBe('3 record(s), 2 shown (all); 1 producer(s), 1 memo(s), 0 tombstone(s); next_pid unset; no findings');
  });
});

describe('segment inspect renderers', () => {
  const rec: RecordReport = {
    offset: 8n,
    position: 8,
    size: 40,
    timestamp: 2n ** 62n,
    timestampIso: null,
    attrs: 0,
    codec: 'none',
    control: true,
    transactional: true,
    hasHeaders: false,
    keySize: 1,
    valueSize: 2,
    headerCount: 0,
    crcValid: false,
    controlMarker: { marker: 'COMMIT', producerId: 1n, epoch: 0 },
    payload: { key: Buffer.from('k'), value: undefined, headers: [], decompressError: 'bad snappy' },
  };

  it('payload JSON uses the chosen encodings and keeps a decompression error', () => {
    expect(recordJson(rec, { key: 'hex', value: 'base64' })).toMatchObject({
      key: '6b',
      value: null,
      headers: [],
      decompressError: 'bad snappy',
    });
    const { payload: _p, ...bare } = rec;
    expect(recordJson(bare, { key: 'utf8', value: 'utf8' })).toEqual(bare);
    const report = {
      level: 'payload',
      paths: [],
      findings: [],
      summary: {},
      partitions: [{ dir: 'd', backend: 'segmented', segments: [{ file: 'a' }, { file: 'b', records: [rec] }] }],
    };
    const json = reportJson(report as never, { key: 'utf8', value: 'utf8' }) as typeof report;
    expect(json.partitions[0]!.segments[0]).toEqual({ file: 'a' });
    expect((json.partitions[0]!.segments[1] as { records: unknown[] }).records[0]).toMatchObject({ key: 'k' });
  });

  it('record rows show flags, a raw timestamp outside Date range, a bad CRC and the marker', () => {
    const row = cells(segmentRecordColumns('payload', { key: 'utf8', value: 'utf8' }), { ...rec, file: 'f' });
    expect(row).toMatchObject({
      TIMESTAMP: String(2n ** 62n),
      CTH: 'CT-',
      CRC: 'BAD',
      MARKER: 'COMMIT',
      KEY: 'k',
      VALUE: 'bad snappy',
      HEADERS: '',
    });
    expect(segmentRecordColumns('record', { key: 'utf8', value: 'utf8' }).map((c) => c.header)).not.toContain('KEY');
    const seg = cells(segmentColumns(), { codecs: { none: 2, gzip: 1 }, findingCount: 0 } as never);
    expect(seg.CODECS).toBe('none:2 gzip:1');
  });

  it('the summary line: offsets or "no records", codecs or "none", findings pluralised', () => {
    const s = {
      partitions: 1,
      segments: 2,
      records: 0,
      bytes: 0,
      codecs: {},
      transactional: 0,
      control: 0,
      findings: 0,
      findingsByKind: {},
    };
    expect(summaryLine(s, plain)).toBe(
      '1 partition(s), 2 segment(s), 0 record(s), 0 B; no records; codecs: none; transactional 0, control 0; no findings',
    );
    expect(
      summaryLine({ ...s, records: 2, firstOffset: 0n, lastOffset: 30n, codecs: { none: 2 }, findings: 2 }, plain),
    ).toContain('offsets 0..30; codecs: none 2; transactional 0, control 0; 2 findings');
  });
});

describe('share renderers', () => {
  it('lag is end minus SPSO; the histogram lists delivery counts; a config entry has no target', () => {
    const p = {
      topic: 't',
      partition: 1,
      spso: 10n,
      speo: 20n,
      endOffset: 25n,
      available: 1,
      acquired: 2,
      acknowledged: 3,
      archived: 4,
      oldestLockAgeMs: 5,
      deliveryCounts: [
        { deliveryCount: 1, records: 4 },
        { deliveryCount: 2, records: 1 },
      ],
    };
    expect(cells(sharePartitionColumns, p as never)).toMatchObject({ LAG: '15', DELIVERIES: '1:4 2:1' });
    const entry = { internalPartition: 0, offset: 1n, kind: 'config', group: 'g', detail: 'd' } as const;
    expect(cells(shareStateColumns, entry).TARGET).toBe('');
    expect(cells(shareStateColumns, { ...entry, topic: 't', partition: 2 }).TARGET).toBe('t/2');
  });
});
