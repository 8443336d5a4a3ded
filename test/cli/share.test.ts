/**
 * `crater share …` through the built binary against one in-process broker: consume with --ack and --exec (exit
 * status decides accept / reject / release), describe / list / alter / reset with their --json shapes, reset refused
 * while members are active, and `share state` decoding the broker's __share_group_state offline with --verify.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { connect } from '../../src/client/index.js';
import { useCliBroker } from '../helpers/cli.js';

// Every case runs the built binary several times; on a loaded machine each start takes seconds.
vi.setConfig({ testTimeout: 120_000 });

const server = useCliBroker();

const { crater } = server;

async function json(args: string[]): Promise<any> {
  const r = await crater([...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

async function produce(topic: string, values: string[]): Promise<void> {
  const c = await connect({ broker: server.address });
  try {
    await c.produceBatch(
      topic,
      values.map((value) => ({ value })),
    );
  } finally {
    await c.close();
  }
}

describe('share consume', () => {
  it('prints records as JSON lines with deliveryCount; release hands them back with the count raised', async () => {
    await json(['topic', 'create', 'jobs', '--partitions', '1']);
    expect(await json(['share', 'alter', 'g1', '--set', 'auto.offset.reset=earliest'])).toEqual({
      group: 'g1',
      set: { 'auto.offset.reset': 'earliest' },
    });
    await produce('jobs', ['a', 'b']);
    const first = await crater(['share', 'consume', 'jobs', '--group', 'g1', '-n', '2', '--ack', 'release', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const lines = first.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.value.utf8, l.deliveryCount])).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
    expect(first.stderr).toMatch(/released 2/);
    const second = await crater(['share', 'consume', 'jobs', '--group', 'g1', '-n', '2']);
    expect(second.stdout).toBe('a\nb\n');
    const third = await crater(['share', 'consume', 'jobs', '--group', 'g1', '-n', '1', '--idle-timeout', '300ms']);
    expect(third.code).toBe(4);
    expect(third.stdout).toBe('');
  });

  it('--exec decides by exit status: 0 accepts, 65 rejects (dead-lettered when enabled), other releases', async () => {
    await json(['topic', 'create', 'tasks', '--partitions', '1']);
    await json(['share', 'alter', 'g2', '--set', 'auto.offset.reset=earliest', '--set', 'dlq.enabled=true']);
    await produce('tasks', ['ok', 'bad', 'retry']);
    const script = `v=$(cat); case "$v" in *'"ok"'*) exit 0;; *'"bad"'*) exit 65;; *) exit 1;; esac`;
    const r = await crater(['share', 'consume', 'tasks', '--group', 'g2', '-n', '3', '--exec', script]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/accepted 1, released 1, rejected 1/);
    const d = await json(['share', 'describe', 'g2']);
    expect(d.partitions[0]).toMatchObject({ topic: 'tasks', available: 1, acquired: 0 });
    expect(d.partitions[0].deliveryCounts).toEqual([{ deliveryCount: 1, records: 1 }]);
    const dlq = await crater(['consume', 'tasks.dlq', '-e', '--from', 'beginning', '--json']);
    expect(dlq.stdout.trim().split('\n')).toHaveLength(1);
  });
});

describe('share describe, list, alter, reset, state', () => {
  it('describe and list --json shapes', async () => {
    await json(['topic', 'create', 'admin', '--partitions', '2']);
    await json(['share', 'alter', 'g3', '--set', 'auto.offset.reset=earliest']);
    await produce('admin', ['x', 'y', 'z']);
    await crater(['share', 'consume', 'admin', '--group', 'g3', '-n', '3']);
    const d = await json(['share', 'describe', 'g3']);
    expect(d).toMatchObject({ group: 'g3', state: 0, members: [] });
    expect(d.config).toContainEqual({ key: 'record.lock.duration.ms', value: '30000' });
    expect(d.partitions).toHaveLength(2);
    for (const p of d.partitions) expect(p.spso).toBe(p.endOffset);
    expect(await json(['share', 'list'])).toContainEqual({ group: 'g3', members: 0, partitions: 2 });
  });

  it('a bad config is exit 1 and applies nothing; reset moves the SPSO back', async () => {
    const bad = await crater([
      'share',
      'alter',
      'g3',
      '--set',
      'delivery.count.limit=0',
      '--set',
      'record.lock.duration.ms=5',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/INVALID_CONFIG/);
    expect((await json(['share', 'describe', 'g3'])).config).toContainEqual({
      key: 'record.lock.duration.ms',
      value: '30000',
    });
    expect(await json(['share', 'reset', 'g3', '--to', 'earliest'])).toEqual({
      group: 'g3',
      to: 'earliest',
      topic: null,
    });
    const again = await crater(['share', 'consume', 'admin', '--group', 'g3', '-n', '3']);
    expect(again.stdout.split('\n').filter(Boolean).sort()).toEqual(['x', 'y', 'z']);
    const human = await crater(['share', 'describe', 'g3']);
    expect(human.stdout).toMatch(/SPSO/);
  });

  it('reset is refused while a member is active', async () => {
    await json(['topic', 'create', 'busy', '--partitions', '1']);
    const c = await connect({ broker: server.address });
    try {
      const m = await c.shareConsumer({ group: 'g4', topics: ['busy'] });
      const r = await crater(['share', 'reset', 'g4', '--to', 'latest']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/GROUP_NOT_EMPTY/);
      await m.close();
    } finally {
      await c.close();
    }
  });

  it('share state decodes __share_group_state read-only; --verify exits 3 on a damaged record', async () => {
    const dir = server.dataDir;
    const ok = await crater(['share', 'state', dir, '--group', 'g1', '--json', '--verify']);
    expect(ok.code, ok.stderr).toBe(0);
    const report = JSON.parse(ok.stdout);
    expect(report.view).toBe('compacted');
    const snap = report.entries.find((e: any) => e.kind === 'partition' && e.topic === 'jobs');
    expect(snap.runs.map((r: any) => r.state)).toEqual([]);
    expect(report.entries.find((e: any) => e.kind === 'config').config).toEqual({ 'auto.offset.reset': 'earliest' });
    const history = JSON.parse((await crater(['share', 'state', dir, '--group', 'g1', '--history', '--json'])).stdout);
    const counts = history.entries
      .filter((e: any) => e.kind === 'partition')
      .flatMap((e: any) => e.runs.map((r: any) => r.deliveryCount));
    expect(Math.max(...counts)).toBe(2);

    const copy = path.join(path.dirname(dir), `${path.basename(dir)}-copy`);
    await fs.cp(path.join(dir, '__share_group_state'), path.join(copy, '__share_group_state'), { recursive: true });
    try {
      const logs = (await fs.readdir(path.join(copy, '__share_group_state'), { recursive: true })).filter((f) =>
        String(f).endsWith('.log'),
      );
      let damaged = false;
      for (const f of logs) {
        const file = path.join(copy, '__share_group_state', String(f));
        const bytes = await fs.readFile(file);
        if (bytes.length > 40) {
          bytes[bytes.length - 3]! ^= 0xff;
          await fs.writeFile(file, bytes);
          damaged = true;
          break;
        }
      }
      expect(damaged).toBe(true);
      const bad = await crater(['share', 'state', copy, '--verify']);
      expect(bad.code).toBe(3);
    } finally {
      await fs.rm(copy, { recursive: true, force: true });
    }
  });
});
