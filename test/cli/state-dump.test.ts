/**
 * `crater state dump` through the built binary (`npm test` builds first): the committed fixture
 * (fixtures/producer-state, from scripts/make-fixture-producer-state.js), memos a broker wrote in this test, and
 * damaged copies of the fixture. The fixture's __producer_state holds, in log order: identities app (pid 1, epoch
 * 0 then 1), gone (pid 2), legacy (pid 3), solo (pid 4); memos v1 (pid 3 orders), v2 (pid 1 orders, later
 * replaced by v3; pid 2 orders; pid 4 orders), v3 (pid 1 orders with 2 acks, pid 1 payments with a dangling ack);
 * the allocator watermark 4; tombstones for gone's identity and memo.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Broker } from '../../src/broker/broker.js';
import { connect } from '../../src/client/client.js';
import { encodeMemoKey, encodeMemoValue } from '../../src/storage/producer-state-codec.js';
import { encodeRecord } from '../../src/storage/record.js';
import { crater, repoRoot } from '../helpers/cli.js';

const fixture = path.join(repoRoot, 'fixtures', 'producer-state');

interface JsonEntry {
  kind: string;
  tombstone: boolean;
  producerName?: string;
  producerId?: number;
  topic?: string;
  epoch?: number;
  nextPid?: number;
  memo?: { version: number; lastSeq: number; baseSeq?: number; acks?: { partition: number; offset: number }[] };
}
interface JsonReport {
  view: string;
  entries: JsonEntry[];
  findings: { kind: string; file: string; offset?: number; message: string }[];
  summary: {
    records: number;
    tombstones: number;
    nextPid: number;
    memoVersions: Record<string, number>;
    acksChecked: number;
  };
}

async function dumpJson(args: string[]): Promise<{ code: number | null; report: JsonReport }> {
  const r = await crater(['state', 'dump', ...args, '--json']);
  return { code: r.code, report: JSON.parse(r.stdout) as JsonReport };
}

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-cli-state-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('crater state dump on the fixture', () => {
  it('shows the compacted view: v1, v2 and v3 memos with every batch ack, identities, the watermark', async () => {
    const { code, report } = await dumpJson([fixture]);
    expect(code).toBe(0);
    expect(report.view).toBe('compacted');
    const memo = (pid: number, topic: string) =>
      report.entries.find((e) => e.kind === 'memo' && e.producerId === pid && e.topic === topic);
    expect(memo(3, 'orders')?.memo).toMatchObject({ version: 1, lastSeq: 7 });
    expect(memo(3, 'orders')?.epoch).toBeUndefined();
    expect(memo(4, 'orders')?.memo).toMatchObject({ version: 2, lastSeq: 0 });
    expect(memo(1, 'orders')?.memo).toMatchObject({
      version: 3,
      lastSeq: 2,
      baseSeq: 1,
      acks: [
        { partition: 1, offset: 36 },
        { partition: 1, offset: 73 },
      ],
    });
    expect(memo(2, 'orders')).toBeUndefined();
    expect(report.entries.find((e) => e.producerName === 'app')).toMatchObject({ producerId: 1, epoch: 1 });
    expect(report.entries.find((e) => e.producerName === 'gone')).toBeUndefined();
    expect(report.entries.find((e) => e.kind === 'allocator')?.nextPid).toBe(4);
    expect(report.findings).toEqual([]);
    expect(report.summary).toMatchObject({
      records: 14,
      tombstones: 2,
      nextPid: 4,
      memoVersions: { v1: 1, v2: 1, v3: 2 },
    });
  });

  it('--history lists every record in log order, tombstones included; the same from the topic dir or a partition dir', async () => {
    const { report } = await dumpJson([fixture, '--history']);
    expect(report.entries).toHaveLength(14);
    expect(
      report.entries
        .filter((e) => e.tombstone)
        .map((e) => e.kind)
        .sort(),
    ).toEqual(['identity', 'memo']);
    const fromTopic = await dumpJson([path.join(fixture, '__producer_state'), '--history']);
    expect(fromTopic.report.entries).toEqual(report.entries);
    const part = await dumpJson([path.join(fixture, '__producer_state', 'partition-16'), '--history']);
    expect(part.report.entries.map((e) => e.epoch)).toEqual([0, 1]);
  });

  it('filters by producer name, by pid and by topic', async () => {
    const byName = await dumpJson([fixture, '--producer', 'app']);
    expect(byName.report.entries.map((e) => `${e.kind}:${e.topic ?? e.producerName}`).sort()).toEqual([
      'identity:app',
      'memo:orders',
      'memo:payments',
    ]);
    const byPid = await dumpJson([fixture, '--producer', '3']);
    expect(byPid.report.entries.map((e) => e.kind).sort()).toEqual(['identity', 'memo']);
    const byTopic = await dumpJson([fixture, '--topic', 'payments']);
    expect(byTopic.report.entries.map((e) => e.producerId)).toEqual([1]);
  });

  it('--against reports the ack that points at nothing; --verify turns findings into exit 3', async () => {
    expect((await crater(['state', 'dump', fixture, '--verify'])).code).toBe(0);
    const { code, report } = await dumpJson([fixture, '--against', fixture, '--verify']);
    expect(code).toBe(3);
    expect(report.summary.acksChecked).toBe(5);
    expect(report.findings).toHaveLength(1);
    expect(report.findings[0]).toMatchObject({ kind: 'dangling-ack' });
    expect(report.findings[0]!.message).toMatch(/'payments' ack 0 .* 2@42/);
  });

  it('prints a table and a summary line for people', async () => {
    const r = await crater(['state', 'dump', fixture]);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^\s*P\s+OFFSET\s+KIND\s+PRODUCER\s+PID\s+EPOCH\s+TOPIC\s+DETAIL/);
    expect(r.stdout).toContain('batch 1..2: 1@36 1@73');
    expect(r.stderr).toMatch(/14 record\(s\), 8 shown \(compacted\).*next_pid 4; no findings/);
  });
});

describe('crater state dump on damaged state', () => {
  /** A copy of the fixture with raw records appended to one partition's log (the bytes after them untouched). */
  function damaged(tail: Buffer[], partition = 3): { state: string; log: string } {
    const state = path.join(dir, 'state');
    fs.cpSync(fixture, state, { recursive: true });
    const partDir = path.join(state, '__producer_state', `partition-${partition}`);
    fs.mkdirSync(partDir, { recursive: true });
    const log = path.join(partDir, '00000000000000000000.log');
    fs.appendFileSync(log, Buffer.concat(tail));
    return { state, log };
  }
  const record = (key: Buffer, value: Buffer) => encodeRecord({ attrs: 0, timestamp: 1_700_000_000_000n, key, value });

  it('reports a wrong-length value, a v3 tail past its bytes, an unknown tag and a torn tail, and carries on', async () => {
    const key = encodeMemoKey(9n, 'orders');
    const v3 = Buffer.alloc(18 + 8 + 12);
    v3.writeUInt32BE(5, 22); // count 5, but only 1 ack's bytes follow
    const whole = record(Buffer.from([0x09, 0x01]), Buffer.from('x'));
    const { state, log } = damaged([
      record(key, Buffer.alloc(17)),
      record(encodeMemoKey(9n, 'audit'), v3),
      whole,
      record(Buffer.from([0x01, 0x61]), Buffer.alloc(10)).subarray(0, 20),
    ]);
    const before = fs.readFileSync(log);
    const { code, report } = await dumpJson([state, '--history', '--verify']);
    expect(code).toBe(3);
    expect(report.findings.map((f) => f.kind).sort()).toEqual([
      'bad-v3-tail',
      'truncated-log',
      'unknown-tag',
      'wrong-length',
    ]);
    expect(report.findings.every((f) => f.file === log)).toBe(true);
    // The v3 finding names the field, its offsets and what was expected; its file byte is where the tail starts.
    const tail = report.findings.find((f) => f.kind === 'bad-v3-tail')!;
    expect(tail.message).toMatch(
      /^v3 tail \(20 bytes from value byte 18, file byte (\d+)\) is not whole: ack count 5 at value byte 22 needs 60 bytes of acks from value byte 26, found 12; the memo is used as v2/,
    );
    const tailAt = Number(/file byte (\d+)/.exec(tail.message)![1]);
    expect(before.readUInt32BE(tailAt + 4)).toBe(5);
    // The fixture's own 14 records are still decoded, plus the three framed records appended.
    expect(report.entries).toHaveLength(17);
    expect(report.entries.find((e) => e.topic === 'audit')?.memo?.version).toBe(2);
    // Read-only: the damaged log is exactly as it was.
    expect(fs.readFileSync(log).equals(before)).toBe(true);
  });

  it('a torn window tail is its own finding: the memo stays v3, and the table says where and what', async () => {
    const memo = encodeMemoValue({
      lastSeq: 7,
      lastOffset: 40n,
      lastPartition: 1,
      epoch: 0,
      batch: { baseSeq: 7, acks: [{ partition: 1, offset: 40n }] },
      window: [
        {
          baseSeq: 5,
          acks: [
            { partition: 1, offset: 20n },
            { partition: 1, offset: 30n },
          ],
        },
      ],
    });
    const { state, log } = damaged([record(encodeMemoKey(9n, 'win'), memo.subarray(0, memo.length - 7))]);
    const { code, report } = await dumpJson([state, '--topic', 'win', '--verify']);
    expect(code).toBe(3);
    expect(report.entries.map((e) => e.memo?.version)).toEqual([3]);
    expect(report.findings.map((f) => f.kind)).toEqual(['bad-window-tail']);
    const message = report.findings[0]!.message;
    expect(message).toMatch(
      /^window tail \(30 bytes from value byte 38, file byte (\d+)\) is not whole: batch 1 of 1: /,
    );
    expect(message).toContain('ack count 2 at value byte 47 needs 24 bytes of acks from value byte 51, found 17');
    expect(message).not.toContain('v2');
    const at = Number(/file byte (\d+)/.exec(message)![1]);
    expect(
      fs
        .readFileSync(log)
        .subarray(at, at + 4)
        .toString('latin1'),
    ).toBe('CRWI');
    const table = await crater(['state', 'dump', state, '--topic', 'win']);
    expect(table.stdout).toMatch(/bad-window-tail .* window tail \(30 bytes from value byte 38, file byte \d+\)/);
  });

  it('a flipped byte inside a record is a corrupt-record finding', async () => {
    const { state, log } = damaged([record(encodeMemoKey(9n, 'orders'), Buffer.alloc(18))]);
    const bytes = fs.readFileSync(log);
    bytes[bytes.length - 3]! ^= 0xff;
    fs.writeFileSync(log, bytes);
    const { code, report } = await dumpJson([state, '--verify']);
    expect(code).toBe(3);
    expect(report.findings.map((f) => f.kind)).toEqual(['corrupt-record']);
  });

  it('a path without __producer_state is a finding, not a crash', async () => {
    const { code, report } = await dumpJson([path.join(fixture, 'orders'), '--verify']);
    expect(code).toBe(3);
    expect(report.findings[0]?.kind).toBe('not-producer-state');
  });
});

describe('crater state dump on memos a broker wrote', () => {
  it('decodes the v3 memo of a durable batch and finds every ack in the topic (--against)', async () => {
    const dataDir = path.join(dir, 'data');
    const broker = await Broker.start({ dataDir, port: 0, topics: [{ name: 'orders', partitions: 3 }] });
    let acks;
    try {
      const client = await connect({ broker: `127.0.0.1:${broker.address.port}` });
      const producer = client.producer({ producerName: 'billing' });
      ({ acks } = await producer.sendBatch(
        'orders',
        Array.from({ length: 12 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })),
      ));
      await producer.send('orders', { key: 'one', value: 'more' });
      await producer.sendBatch('orders', [
        { key: 'a', value: 'last' },
        { key: 'b', value: 'batch' },
      ]);
      await producer.close();
      await client.close();
    } finally {
      await broker.stop();
    }
    const history = await dumpJson([dataDir, '--history', '--producer', 'billing']);
    const memos = history.report.entries.filter((e) => e.kind === 'memo');
    // On crater a lone record rides the idempotent window as a batch of one (docs/producer.md), so its memo is v3 too.
    expect(memos.map((e) => e.memo?.version)).toEqual([3, 3, 3]);
    expect(memos[0]!.memo!.acks).toEqual(acks.map((a) => ({ partition: a.partition, offset: Number(a.offset) })));
    const { code, report } = await dumpJson([dataDir, '--against', dataDir, '--verify']);
    expect(code).toBe(0);
    expect(report.summary.acksChecked).toBe(2);
    expect(report.entries.find((e) => e.kind === 'memo')?.memo).toMatchObject({ version: 3, baseSeq: 13, lastSeq: 14 });
  });
});
