/**
 * The CLI against the real 3-node Kafka cluster with --broker kafka://... (through CRATER_BROKER): topic admin,
 * produce/consume with Kafka's units, the JSONL envelope byte for byte, offsets with lag, groups, and what Kafka
 * cannot do refused with an error naming the backend.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { KafkaBackend } from '../../src/client/kafka/kafka-backend.js';
import { crater, jsonLines, spawnCrater } from '../helpers/cli.js';
import { bootstrap, noKafka, openKafka, pollUntil, uniqueName } from './helpers.js';

const run = (args: string[], input = '') => crater(args, input, { broker: bootstrap() });

describe.skipIf(noKafka)('crater CLI on Kafka', () => {
  let kafka: KafkaBackend;
  beforeAll(async () => {
    kafka = await openKafka();
    return () => kafka.close();
  });

  it('creates, lists, describes, alters, grows and deletes a topic, saying it is on Kafka', async () => {
    const topic = uniqueName('cli-topic');
    const created = await run(['topic', 'create', topic, '--partitions', '3']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toContain('backend: kafka');
    expect((await run(['topic', 'list'])).stdout.split('\n')).toContain(topic);

    const altered = await run(['topic', 'alter', topic, '--set', 'retention.ms=3600000']);
    expect(altered.code, altered.stderr).toBe(0);
    const grown = await run(['topic', 'add-partitions', topic, '--total', '5']);
    expect(grown.code, grown.stderr).toBe(0);
    const described = await run(['topic', 'describe', topic, '--json']);
    expect(JSON.parse(described.stdout)).toEqual({ name: topic, partitions: 5, config: { 'retention.ms': '3600000' } });

    expect((await run(['topic', 'delete', topic])).code).toBe(0);
    await pollUntil('topic gone', async () => ((await kafka.listTopics()).includes(topic) ? undefined : true));
    const again = await run(['topic', 'create', topic, '--partitions', '1']);
    expect(again.code, again.stderr).toBe(0);
    const dup = await run(['topic', 'create', topic, '--json']);
    expect(dup.code).toBe(1);
    expect(JSON.parse(dup.stdout).error.message).toContain('TOPIC_ALREADY_EXISTS');
  });

  it('round-trips JSONL envelopes byte for byte: binary keys, no key, duplicate headers in order, 0-based partitions', async () => {
    const topic = uniqueName('cli-env');
    await kafka.createTopic(topic, 3);
    const envelopes = [
      { key: { base64: Buffer.from([0, 0xff, 0x10]).toString('base64') }, value: { utf8: 'binary key' }, headers: [] },
      {
        key: null,
        value: { utf8: 'no key' },
        headers: [
          { name: 'h', value: { utf8: '1' } },
          { name: 'h', value: { utf8: '2' } },
          { name: 'a', value: { base64: '/wA=' } },
        ],
      },
      {
        key: { utf8: 'k' },
        value: { base64: Buffer.from([0xc3, 0x28]).toString('base64') },
        headers: [{ name: 'empty', value: { utf8: '' } }],
      },
    ];
    const input = envelopes
      .map((e) => JSON.stringify({ topic, partition: 0, offset: 0, timestamp: 0, ...e }))
      .join('\n');
    const produced = await run(['produce', topic, '--input', 'jsonl', '--batch', '10', '--json'], input);
    expect(produced.code, produced.stderr).toBe(0);
    const reports = jsonLines(produced.stdout);
    expect(reports).toHaveLength(envelopes.length);
    for (const d of reports) {
      expect(d.partition).toBeGreaterThanOrEqual(0);
      expect(d.partition).toBeLessThan(3);
    }

    const consumed = await run(['consume', topic, '--from', 'beginning', '-e', '--json']);
    expect(consumed.code, consumed.stderr).toBe(0);
    const got = jsonLines(consumed.stdout);
    expect(got).toHaveLength(3);
    const strip = (e: { key: unknown; value: unknown; headers: unknown }) =>
      JSON.stringify({ key: e.key, value: e.value, headers: e.headers });
    expect(got.map(strip).sort()).toEqual(envelopes.map(strip).sort());
    // Offsets are record counts: each partition's records are numbered 0, 1, 2, ...
    const byPartition = new Map<number, number[]>();
    for (const e of got) byPartition.set(e.partition, [...(byPartition.get(e.partition) ?? []), e.offset]);
    for (const offsets of byPartition.values()) expect(offsets.sort()).toEqual(offsets.map((_, i) => i));
  });

  it('sends every record to -p PARTITION with each codec, and refuses a partition the topic does not have', async () => {
    const topic = uniqueName('cli-part');
    await kafka.createTopic(topic, 3);
    for (const codec of ['none', 'gzip', 'snappy', 'lz4']) {
      const produced = await run(
        ['produce', topic, '-p', '2', '--codec', codec, '--batch', '5', '--json'],
        'a\nb\nc\n',
      );
      expect(produced.code, `${codec}: ${produced.stderr}`).toBe(0);
      expect(jsonLines(produced.stdout).map((d) => d.partition)).toEqual([2, 2, 2]);
    }
    const { partitions } = await kafka.listOffsets(topic);
    expect(partitions.map((p) => p.latest)).toEqual([0n, 0n, 12n]);
    const bad = await run(['produce', topic, '-p', '7'], 'x\n');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('partitions 0..2');
  });

  it('shows offsets as record counts with the lag of a group, lists, describes and deletes the group', async () => {
    const topic = uniqueName('cli-lag');
    const group = uniqueName('g');
    await kafka.createTopic(topic, 2);
    const lines = Array.from({ length: 10 }, (_, i) => `k${i}:v${i}`).join('\n');
    const produced = await run(['produce', topic, '-K', ':', '--batch', '10'], lines);
    expect(produced.code, produced.stderr).toBe(0);
    // The Produce requests the library really sent (one per partition leader of the send, or more with retries).
    const requests = Number(/produced 10 of 10 records to \S+ in (\d+) requests?/.exec(produced.stderr)?.[1]);
    expect(requests).toBeGreaterThanOrEqual(1);
    expect(requests).toBeLessThanOrEqual(10);
    const consumed = await run(['consume', topic, '--group', group, '-n', '4', '-f', '%s\n']);
    expect(consumed.code, consumed.stderr).toBe(0);
    expect(consumed.stdout.trim().split('\n')).toHaveLength(4);

    const offsets = JSON.parse((await run(['offsets', topic, '--group', group, '--json'])).stdout);
    const parts = offsets.partitions as { latest: number; groups: { committed: number | null; lag: number }[] }[];
    expect(parts.reduce((n, p) => n + Number(p.latest), 0)).toBe(10);
    expect(parts.reduce((n, p) => n + Number(p.groups[0]!.lag), 0)).toBe(6);

    const listed = JSON.parse((await run(['group', 'list', '--json'])).stdout);
    expect(listed.groups.map((g: { groupId: string }) => g.groupId)).toContain(group);
    const described = JSON.parse((await run(['group', 'describe', group, '--json'])).stdout);
    expect(described.offsets.reduce((n: number, o: { offset: number }) => n + Number(o.offset), 0)).toBe(4);
    expect((await run(['group', 'delete', group])).code).toBe(0);
    const after = JSON.parse((await run(['group', 'list', '--json'])).stdout);
    expect(after.groups.map((g: { groupId: string }) => g.groupId)).not.toContain(group);
  });

  it('produces idempotently and in one transaction; read_committed sees the committed records', async () => {
    const topic = uniqueName('cli-txn');
    await kafka.createTopic(topic, 2);
    expect((await run(['produce', topic, '--idempotent', '--batch', '3'], 'i1\ni2\ni3\n')).code).toBe(0);
    const txn = await run(
      ['produce', topic, '--producer-name', uniqueName('tx'), '--transactional', '--batch', '2'],
      't1\nt2\nt3\n',
    );
    expect(txn.code, txn.stderr).toBe(0);
    expect(txn.stderr).toContain('transaction committed: 3 records');
    const consumed = await run([
      'consume',
      topic,
      '--from',
      'beginning',
      '-e',
      '--isolation',
      'read_committed',
      '-f',
      '%s\n',
    ]);
    expect(consumed.code, consumed.stderr).toBe(0);
    expect(consumed.stdout.trim().split('\n').sort()).toEqual(['i1', 'i2', 'i3', 't1', 't2', 't3']);
  });

  it('--follow streams records produced after it joined', async () => {
    const topic = uniqueName('cli-follow');
    await kafka.createTopic(topic, 1);
    const group = uniqueName('f');
    const follower = spawnCrater(['consume', topic, '--follow', '--group', group, '-n', '3', '-f', '%s\n'], {
      broker: bootstrap(),
    });
    follower.child.stdin.end();
    await pollUntil('follower joined', async () =>
      (await kafka.describeGroup(group)).members.length > 0 ? true : undefined,
    );
    await kafka.produceBatch(topic, [{ value: 'x' }, { value: 'y' }, { value: 'z' }]);
    const result = await follower.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('x\ny\nz\n');
  });

  it('refuses what Kafka cannot do, naming the backend', async () => {
    const topic = uniqueName('cli-refuse');
    await kafka.createTopic(topic, 1);
    const legacy = await run(['fetch', topic, '--group', 'g', '--legacy', '--json']);
    expect(legacy.code).toBe(1);
    const error = JSON.parse(legacy.stdout).error;
    expect(error.code).toBe('ERR_UNSUPPORTED');
    expect(error.message).toContain(
      "FETCH's legacy one-RECORD-per-record reply shape (not supported by the kafka backend)",
    );
    await expect(kafka.nack(topic, 0, 0n, 'bad')).rejects.toMatchObject({ code: 'ERR_UNSUPPORTED', backend: 'kafka' });
  });
});
