/**
 * `crater produce --idempotent` through the built binary against an in-process broker (port 0, temp dir): records
 * land once through one producer session, --json reports one delivery per record, --batch over the idempotent cap
 * of 1,024 goes out in capped requests, and batch frames leave room for the producer fields under the frame limit.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { LogRecord } from '../../src/storage/partition-log.js';
import { crater, createTopic, jsonLines, useCliBroker } from '../helpers/cli.js';

const temp = useCliBroker();
let address: string;

beforeAll(async () => {
  ({ address } = temp);
});

function stored(topic: string): LogRecord[] {
  return temp.broker.topics.requireTopic(topic).partitions.flatMap((log) => log.read(0n, { maxRecords: 10_000 }));
}

const produce = (topic: string, flags: string[], input: string) =>
  crater(['produce', topic, ...flags], input, { broker: address });

describe('crater produce --idempotent', () => {
  it('lands each record once through one idempotent session, and --json reports every delivery', async () => {
    await createTopic(address, 'idem', 2);
    const lines = ['a', 'b', 'c', 'd', 'e'];
    const pidBefore = temp.broker.producerState.nextPid;
    const r = await produce(
      'idem',
      ['--idempotent', '--json', '-K', ':'],
      lines.map((v, i) => `k${i}:${v}`).join('\n') + '\n',
    );
    expect(r.code, r.stderr).toBe(0);
    // INIT_PRODUCER_ID ran once: one ephemeral pid was issued.
    expect(temp.broker.producerState.nextPid).toBe(pidBefore + 1n);
    const reports = jsonLines(r.stdout);
    expect(reports.map((d) => d.index)).toEqual([0, 1, 2, 3, 4]);
    for (const d of reports)
      expect(d).toMatchObject({ topic: 'idem', partition: expect.any(Number), offset: expect.any(Number) });
    expect(reports.some((d) => 'error' in d)).toBe(false);

    expect(
      stored('idem')
        .map((rec) => rec.value.toString())
        .sort(),
    ).toEqual(lines);
    // Each report names the (partition, offset) its record landed at, and no record landed twice.
    const byPartition = new Map<number, string[]>();
    for (const d of reports) byPartition.set(d.partition, [...(byPartition.get(d.partition) ?? []), String(d.offset)]);
    temp.broker.topics.requireTopic('idem').partitions.forEach((log, i) => {
      expect(log.read(0n, { maxRecords: 100 }).map((rec) => String(rec.offset))).toEqual(byPartition.get(i + 1) ?? []);
    });
  }, 60_000);

  it('plain produce issues no producer id, which is what tells the paths apart above', async () => {
    await createTopic(address, 'plain');
    const pidBefore = temp.broker.producerState.nextPid;
    const r = await produce('plain', [], 'x\n');
    expect(r.code, r.stderr).toBe(0);
    expect(temp.broker.producerState.nextPid).toBe(pidBefore);
    expect(stored('plain')).toHaveLength(1);
  }, 60_000);

  it('--producer-name implies --idempotent: the named durable producer sends', async () => {
    await createTopic(address, 'named');
    const r = await produce('named', ['--producer-name', 'cli-named'], 'one\ntwo\n');
    expect(r.code, r.stderr).toBe(0);
    expect(temp.broker.producerState.producer('cli-named')?.producerId).toBeTypeOf('bigint');
    expect(stored('named').map((rec) => rec.value.toString())).toEqual(['one', 'two']);
  }, 60_000);

  it('--batch 2000 succeeds in requests of at most 1,024 records, every record once and in order', async () => {
    await createTopic(address, 'big');
    const values = Array.from({ length: 2_500 }, (_, i) => `v${i}`);
    const r = await produce('big', ['--idempotent', '--batch', '2000'], values.join('\n') + '\n');
    expect(r.code, r.stderr).toBe(0);
    // 1,024 + 1,024 + 452: a 2,000-record request would have been refused by the broker.
    expect(r.stderr).toMatch(/produced 2,500 of 2,500 records to big in 3 requests/);
    expect(stored('big').map((rec) => rec.value.toString())).toEqual(values);
  }, 60_000);

  it('splits batches so the producer fields fit under --max-frame-size', async () => {
    await createTopic(address, 'frame');
    // Two 100-byte values make a 248-byte plain PRODUCE_BATCH to "frame", 262 bytes once idempotent: over 250.
    const values = ['a', 'b', 'c', 'd'].map((c) => c.repeat(100));
    const r = await produce(
      'frame',
      ['--idempotent', '--batch', '10', '--max-frame-size', '250'],
      values.join('\n') + '\n',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/produced 4 of 4 records to frame in 4 requests/);
    expect(stored('frame').map((rec) => rec.value.toString())).toEqual(values);
  }, 60_000);
});
