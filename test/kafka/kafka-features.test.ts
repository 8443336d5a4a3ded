/**
 * The rest of the CLI on the real 3-node Kafka cluster (--broker kafka://... through CRATER_BROKER): consume --exec
 * (the batch consumer: plain, dead letters with headers, transactional consume-transform-produce), every --from
 * position and -p with Kafka's 0-based partitions, group reset-offsets (refused while the group has a member),
 * offsets in Kafka's unit, and what Kafka cannot do refused with an error naming the backend.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { KafkaBackend } from '../../src/client/kafka/kafka-backend.js';
import { crater, jsonLines } from '../helpers/cli.js';
import { until } from '../helpers/eventually.js';
import { bootstrap, noKafka, openKafka, uniqueName } from './helpers.js';

const run = (args: string[], input = '') => crater(args, input, { broker: bootstrap() });

/** Records the library produced (not through the CLI's produce path), `perPartition` in each partition. */
async function seed(kafka: KafkaBackend, topic: string, partitions: number, perPartition: number): Promise<void> {
  await kafka.createTopic(topic, partitions);
  for (let p = 0; p < partitions; p++) {
    const records = Array.from({ length: perPartition }, (_, i) => ({ key: `k${p}`, value: `p${p}-${i}` }));
    await kafka.produceBatch(topic, records, { partition: p });
  }
}

const values = (stdout: string): string[] => stdout.trim().split('\n').filter(Boolean).sort();

/**
 * `consume TOPIC --group GROUP --exec CMD` with a short batch window, until 3 s pass without a record (an
 * exec consumer's only stop besides ^C: it refuses -n and -e).
 */
const runExec = (topic: string, group: string, cmd: string, ...extra: string[]) =>
  run([
    'consume',
    topic,
    '--group',
    group,
    '--exec',
    cmd,
    '--batch-timeout',
    '200ms',
    '--idle-timeout',
    '3s',
    ...extra,
  ]);

describe.skipIf(noKafka)('crater CLI on Kafka: exec, positions, reset-offsets, refusals', () => {
  let kafka: KafkaBackend;
  /** A fresh topic named after `prefix`, seeded with `perPartition` records in each of `partitions`. */
  const seeded = async (prefix: string, partitions: number, perPartition: number): Promise<string> => {
    const topic = uniqueName(prefix);
    await seed(kafka, topic, partitions, perPartition);
    return topic;
  };
  beforeAll(async () => {
    kafka = await openKafka();
    // Returned, so it runs only once the backend exists.
    return async () => {
      await kafka.close();
    };
  });

  it('consume --exec runs CMD per batch with the envelope on stdin and commits the group past every record', async () => {
    const topic = await seeded('exec', 2, 3);
    const group = uniqueName('xg');
    const r = await runExec(topic, group, 'cat', '--batch-size', '4', '--commit-interval', '200ms');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('backend: kafka');
    const envelopes = jsonLines(r.stdout);
    expect(envelopes.map((e) => e.value.utf8).sort()).toEqual(['p0-0', 'p0-1', 'p0-2', 'p1-0', 'p1-1', 'p1-2']);
    // Kafka's units: partitions 0 and 1, offsets 0..2 in each.
    expect(new Set(envelopes.map((e) => e.partition))).toEqual(new Set([0, 1]));
    expect(envelopes.map((e) => e.offset).sort()).toEqual([0, 0, 1, 1, 2, 2]);
    const described = await kafka.describeGroup(group);
    expect(described.offsets.map((o) => [o.partition, o.offset])).toEqual([
      [0, 3n],
      [1, 3n],
    ]);
    // The cursor group the batch consumer read as is gone.
    expect((await kafka.listGroups()).map((g) => g.groupId)).not.toContain(`${group}.crater-cursor`);
  });

  it('consume --exec dead-letters a batch whose CMD keeps failing, with diagnostic headers, and moves on', async () => {
    const topic = await seeded('exec-dlq', 1, 2);
    const group = uniqueName('dg');
    const r = await runExec(topic, group, 'cat >/dev/null; exit 3', '--retries', '0', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ records: 2, deadLettered: 2 });
    const dlq = await run(['consume', `${topic}.dlq`, '--from', 'beginning', '-e', '--json']);
    expect(dlq.code, dlq.stderr).toBe(0);
    const dead = jsonLines(dlq.stdout);
    expect(dead.map((e) => e.value.utf8).sort()).toEqual(['p0-0', 'p0-1']);
    const header = (e: { headers: { name: string; value: { utf8: string } }[] }, name: string) =>
      e.headers.find((h) => h.name === name)?.value.utf8;
    expect(header(dead[0], 'crater.dlq.error')).toBe('command exited with code 3');
    expect(header(dead[0], 'crater.dlq.group')).toBe(group);
    expect(header(dead[0], 'crater.dlq.partition')).toBe('0');
    expect((await kafka.describeGroup(group)).offsets).toEqual([{ topic, partition: 0, offset: 2n }]);
  });

  it('consume --exec --transactional produces what CMD asked for and commits the group in the same transactions', async () => {
    const topic = await seeded('exec-in', 2, 2);
    const out = uniqueName('exec-out');
    const group = uniqueName('tg');
    await kafka.createTopic(out, 1);
    const cmd = `while read -r line; do echo '{"produce":{"topic":"${out}","value":{"utf8":"done"}}}'; done`;
    const r = await runExec(topic, group, cmd, '--transactional', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ records: 4, produced: 4 });
    const read = await run(['consume', out, '--from', 'beginning', '-e', '--isolation', 'read_committed']);
    expect(read.code, read.stderr).toBe(0);
    expect(values(read.stdout)).toEqual(['done', 'done', 'done', 'done']);
    const described = await kafka.describeGroup(group);
    expect(described.offsets.map((o) => o.offset)).toEqual([2n, 2n]);
  });

  it('--from takes beginning, end, OFFSET, -N and @TS, and -p reads 0-based partitions', async () => {
    const topic = await seeded('from', 2, 3);
    const consume = async (...args: string[]) => {
      const r = await run(['consume', topic, '-e', '-f', '%p:%s\n', ...args]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      return values(r.stdout);
    };
    expect(await consume('--from', 'beginning')).toHaveLength(6);
    expect(await consume('--from', 'end')).toEqual([]);
    expect(await consume('--from', '2')).toEqual(['0:p0-2', '1:p1-2']);
    expect(await consume('--from', '-2')).toEqual(['0:p0-1', '0:p0-2', '1:p1-1', '1:p1-2']);
    expect(await consume('-p', '0')).toEqual(['0:p0-0', '0:p0-1', '0:p0-2']);
    expect(await consume('-p', '1', '--from', '-1')).toEqual(['1:p1-2']);

    const after = BigInt(Date.now()) + 1n;
    await pollPast(after);
    await kafka.produceBatch(topic, [{ value: 'late' }], { partition: 1 });
    expect(await consume('--from', `@${after}`)).toEqual(['1:late']);

    const bad = await run(['consume', topic, '-p', '2', '-e']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('partitions 0..1 (kafka numbers them from 0)');
  });

  it('--from committed (the default) continues where the group stopped; offsets shows lag in records', async () => {
    const topic = await seeded('committed', 1, 4);
    const group = uniqueName('cg');
    const first = await run(['consume', topic, '--group', group, '-n', '3', '-f', '%s\n']);
    expect(first.code, first.stderr).toBe(0);
    const offsets = await run(['offsets', topic, '--group', group]);
    expect(offsets.stdout).toContain('LATEST [records]');
    expect(offsets.stdout).not.toContain('bytes');
    const rest = await run(['consume', topic, '--group', group, '-e', '-f', '%s\n']);
    expect(rest.code, rest.stderr).toBe(0);
    expect(values(first.stdout + rest.stdout)).toEqual(['p0-0', 'p0-1', 'p0-2', 'p0-3']);
  });

  it('group reset-offsets is refused while the group has a member, then moves it (dry run, -p 0, OFFSET, -N, @TS)', async () => {
    const topic = await seeded('reset', 2, 3);
    const group = uniqueName('rg');
    const member = await kafka.consumer({ group, topics: topic });
    let polled = 0;
    await until(
      async () => {
        polled += (await member.poll({ maxRecords: 6 })).length;
        return polled >= 6 ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 0, what: () => `6 records polled (${polled} so far)` },
    );
    expect(polled).toBe(6);
    const refused = await run(['group', 'reset-offsets', group, topic, '--to', 'earliest', '--execute']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('live member');
    await member.close();

    const committed = async () => (await kafka.describeGroup(group)).offsets.map((o) => [o.partition, o.offset]);
    const before = await committed();
    expect(before).toEqual([
      [0, 3n],
      [1, 3n],
    ]);
    const dry = await run(['group', 'reset-offsets', group, topic, '--to', 'earliest', '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({
      executed: false,
      partitions: [
        { partition: 0, current: 3, target: 0 },
        { partition: 1, current: 3, target: 0 },
      ],
    });

    const reset = async (...args: string[]) => {
      const r = await run(['group', 'reset-offsets', group, topic, '--execute', ...args]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      return committed();
    };
    expect(before).toEqual(await committed());
    expect(await reset('--to', 'earliest', '-p', '0')).toEqual([
      [0, 0n],
      [1, 3n],
    ]);
    expect(await reset('--to', '1')).toEqual([
      [0, 1n],
      [1, 1n],
    ]);
    expect(await reset('--to', '-1', '-p', '1')).toEqual([
      [0, 1n],
      [1, 2n],
    ]);
    expect(await reset('--to', `@${BigInt(Date.now()) + 60_000n}`)).toEqual([
      [0, 3n],
      [1, 3n],
    ]);
    const rest = await run(['consume', topic, '--group', group, '-e', '-f', '%s\n']);
    expect(rest.stdout).toBe('');
  });

  it('refuses what Kafka cannot do, naming the backend: share groups, NACK through consumer(), unavailable codecs', async () => {
    const topic = uniqueName('refuse2');
    await kafka.createTopic(topic, 1);
    const share = await run(['share', 'list', '--json']);
    expect(share.code).toBe(1);
    expect(JSON.parse(share.stdout).error).toMatchObject({ code: 'ERR_UNSUPPORTED' });
    expect(JSON.parse(share.stdout).error.message).toContain('not supported by the kafka backend');

    const consumer = await kafka.consumer({ group: uniqueName('n'), topics: topic });
    await expect(consumer.nack(topic, 0, 0n, 'no')).rejects.toMatchObject({
      code: 'ERR_UNSUPPORTED',
      backend: 'kafka',
    });
    await consumer.close();

    const zstd = await run(['produce', topic, '--codec', 'zstd', '--json'], 'x\n');
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    if (major > 22 || (major === 22 && minor >= 15)) {
      expect(zstd.code, zstd.stderr).toBe(0);
    } else {
      expect(zstd.code).toBe(1);
      expect(zstd.stdout + zstd.stderr).toContain('zstd compression on Node');
      expect(zstd.stdout + zstd.stderr).toContain('not supported by the kafka backend');
    }
  });
});

/** Waits until the wall clock has passed `ms` (a timestamp boundary for @TS), without a fixed sleep. */
async function pollPast(ms: bigint): Promise<void> {
  await until(() => (BigInt(Date.now()) > ms ? true : undefined), { intervalMs: 1, what: `the wall clock past ${ms}` });
}
