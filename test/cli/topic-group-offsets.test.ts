/**
 * topic, group and offsets commands through the built binary against one in-process broker: their --json shapes
 * (contracts) and their human output.
 */
import { describe, expect, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import { useCliBroker } from '../helpers/cli.js';

const server = useCliBroker();

const { crater } = server;

async function json(args: string[]): Promise<any> {
  const r = await crater([...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe('topic', () => {
  // This test and the offsets one below run the CLI a dozen times or more in sequence (about 22 s on a quiet 2-core
  // machine beside the Kafka project's run), so each gets twice the default 30 s.
  it('create, list, describe, alter, add-partitions and delete, each with its --json shape', async () => {
    expect(await json(['topic', 'create', 'events', '--partitions', '2'])).toEqual({
      topic: 'events',
      partitions: 2,
      created: true,
    });
    expect((await json(['topic', 'list'])).topics).toContain('events');
    const described = await json(['topic', 'describe', 'events']);
    expect(described).toMatchObject({ name: 'events', partitions: 2 });
    expect(typeof described.config).toBe('object');
    expect(await json(['topic', 'alter', 'events', '--set', 'retention=3600'])).toEqual({
      topic: 'events',
      set: { retention: '3600' },
    });
    expect((await json(['topic', 'describe', 'events'])).config.retention).toBe('3600');
    expect(await json(['topic', 'add-partitions', 'events', '--total', '4'])).toEqual({
      topic: 'events',
      partitions: 4,
    });
    expect((await json(['topic', 'describe', 'events'])).partitions).toBe(4);
    expect(await json(['topic', 'delete', 'events'])).toEqual({ topic: 'events', deleted: true });
    expect((await json(['topic', 'list'])).topics).not.toContain('events');
  }, 60_000);

  it('human output: list prints one name per line; a broker error is one line and exit 1', async () => {
    await crater(['topic', 'create', 'plain']);
    const list = await crater(['topic', 'list']);
    expect(list.stdout.split('\n')).toContain('plain');
    const again = await crater(['topic', 'create', 'plain']);
    expect(again.code).toBe(1);
    expect(again.stderr.trim().split('\n')).toHaveLength(1);
    expect(again.stderr).toMatch(/ERR_BROKER/);
    const bad = await crater(['topic', 'alter', 'plain', '--set', 'novalue']);
    expect(bad.code).toBe(2);
  });
});

describe('offsets and group', () => {
  it('offsets: earliest, latest, high watermark, LSO and lag per --group; group list/describe/delete', async () => {
    const client = await connect({ broker: server.address });
    try {
      await client.createTopic('lag', 2);
    } finally {
      await client.close();
    }
    expect((await crater(['produce', 'lag', '-K', ':'], 'a:1\nb:2\nc:3\nd:4\n')).code).toBe(0);
    // Read one record per partition as "reader" (2 records in all), leaving the rest as lag.
    expect((await crater(['consume', 'lag', '--group', 'reader', '-n', '2', '--json'])).code).toBe(0);

    const doc = await json(['offsets', 'lag', '--group', 'reader']);
    expect(doc.topic).toBe('lag');
    expect(doc.partitions.map((p: { partition: number }) => p.partition)).toEqual([1, 2]);
    let totalLag = 0;
    for (const p of doc.partitions) {
      expect(Object.keys(p).sort()).toEqual(['earliest', 'groups', 'highWatermark', 'latest', 'lso', 'partition']);
      expect(p.highWatermark).toBe(p.latest);
      expect(p.lso).toBe(p.latest);
      const [g] = p.groups;
      expect(g.group).toBe('reader');
      expect(g.lag).toBe(p.latest - Math.max(g.committed ?? 0, p.earliest));
      totalLag += g.lag;
    }
    expect(totalLag).toBeGreaterThan(0);

    // After reading everything the lag is 0 on every partition.
    await crater(['consume', 'lag', '--group', 'reader', '-e']);
    const after = await json(['offsets', 'lag', '--group', 'reader']);
    expect(after.partitions.map((p: { groups: Array<{ lag: number }> }) => p.groups[0]!.lag)).toEqual([0, 0]);
    const human = await crater(['offsets', 'lag', '--group', 'reader']);
    // Segmented topic: offsets and lag are byte positions, and the headers say so.
    expect(human.stdout.split('\n')[0]).toMatch(
      /PARTITION\s+EARLIEST \[bytes\]\s+LATEST \[bytes\]\s+HWM \[bytes\]\s+LSO \[bytes\]\s+LAG\(reader\) \[bytes\]/,
    );

    const groups = await json(['group', 'list']);
    expect(groups.groups).toContainEqual({ groupId: 'reader', state: 'empty', memberCount: 0 });
    const described = await json(['group', 'describe', 'reader']);
    expect(described).toMatchObject({ groupId: 'reader', state: 'empty', members: [] });
    expect(described.offsets.map((o: { topic: string; partition: number }) => [o.topic, o.partition])).toEqual([
      ['lag', 1],
      ['lag', 2],
    ]);
    expect(await json(['group', 'delete', 'reader'])).toEqual({ groupId: 'reader', deleted: true });
    const gone = await crater(['group', 'describe', 'reader', '--json']);
    expect(gone.code).toBe(1);
    expect(JSON.parse(gone.stdout).error.code).toBe('ERR_BROKER');
  }, 60_000);
});
