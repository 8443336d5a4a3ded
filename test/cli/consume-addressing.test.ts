/**
 * `crater consume` addressing like kcat -o/-p (issue 16 items 2 and 3): --from beginning|end|OFFSET|-N|@TS,
 * -p N (repeatable), several topics, a closed pipe that skips nothing, and a --group reader that is a live member.
 * The built binary against one in-process broker (port 0, temp dir); records are placed with produce -p.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import { type CliResult, jsonLines, spawnCrater, useCliBroker } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';

const server = useCliBroker();

const { crater } = server;

const values = (r: CliResult): string[] => jsonLines(r.stdout).map((e) => `${e.partition}:${e.value.utf8}`);

async function describeGroup(group: string) {
  const client = await connect({ broker: server.address });
  try {
    return await client.describeGroup(group);
  } finally {
    await client.close();
  }
}

/** Polls `check` until it returns true or the deadline passes. */
function until(check: () => Promise<boolean>, deadlineMs = 20_000): Promise<void> {
  return eventually(check, { timeoutMs: deadlineMs, intervalMs: 20 });
}

beforeAll(async () => {
  await server.createTopic('addr', 2);
  await server.createTopic('other', 1);
  expect((await crater(['produce', 'addr', '-p', '1'], 'a1\na2\na3\na4\na5\n')).code).toBe(0);
  expect((await crater(['produce', 'addr', '-p', '2'], 'b1\nb2\nb3\nb4\nb5\n')).code).toBe(0);
  expect((await crater(['produce', 'other'], 'o1\n')).code).toBe(0);
}, 60_000);

describe('--from and -p', () => {
  it('-p 2 --from beginning reads only partition 2; -p repeats', async () => {
    expect(values(await crater(['consume', 'addr', '-p', '2', '-e', '--json']))).toEqual([
      '2:b1',
      '2:b2',
      '2:b3',
      '2:b4',
      '2:b5',
    ]);
    const both = values(await crater(['consume', 'addr', '-p', '1', '-p', '2', '-e', '--json']));
    expect(both.sort()).toEqual(['1:a1', '1:a2', '1:a3', '1:a4', '1:a5', '2:b1', '2:b2', '2:b3', '2:b4', '2:b5']);
  });

  it('--from -2 is the last 2 records of each partition', async () => {
    expect(values(await crater(['consume', 'addr', '--from', '-2', '-e', '--json'])).sort()).toEqual([
      '1:a4',
      '1:a5',
      '2:b4',
      '2:b5',
    ]);
  });

  it('--from OFFSET starts at that offset (as printed by --json) in the chosen partition', async () => {
    const all = jsonLines((await crater(['consume', 'addr', '-p', '2', '-e', '--json'])).stdout);
    const third = all.find((e) => e.value.utf8 === 'b3');
    expect(
      values(await crater(['consume', 'addr', '-p', '2', '--from', String(third.offset), '-e', '--json'])),
    ).toEqual(['2:b3', '2:b4', '2:b5']);
  });

  it('--from @TIMESTAMP_MS starts at the first record stamped at or after it', async () => {
    await server.createTopic('timed', 1);
    await crater(['produce', 'timed'], 'old1\nold2\n');
    const old = jsonLines((await crater(['consume', 'timed', '--from', 'beginning', '-e', '--json'])).stdout);
    const after = Math.max(...old.map((e) => Number(e.timestamp))) + 1;
    await until(async () => Date.now() > after);
    await crater(['produce', 'timed'], 'new1\n');
    expect(values(await crater(['consume', 'timed', '--from', `@${after}`, '-e', '--json']))).toEqual(['1:new1']);
  });

  it('--from end with a group reads only what is produced afterwards', async () => {
    await server.createTopic('tail', 1);
    await crater(['produce', 'tail'], 'before\n');
    const moved = await crater(['consume', 'tail', '--group', 'tailers', '--from', 'end', '-e', '--json']);
    expect([moved.code, moved.stdout]).toEqual([0, '']);
    await crater(['produce', 'tail'], 'after\n');
    expect(values(await crater(['consume', 'tail', '--group', 'tailers', '-e', '--json']))).toEqual(['1:after']);
  });

  it('several topics in one consume', async () => {
    const got = values(await crater(['consume', 'addr', 'other', '--from', 'beginning', '-e', '--json']));
    expect(got).toHaveLength(11);
    expect(got).toContain('1:o1');
  });

  it('refuses -p with --group and a malformed --from (exit 2, --json error)', async () => {
    const both = await crater(['consume', 'addr', '-p', '1', '--group', 'g', '--json']);
    expect(both.code).toBe(2);
    expect(JSON.parse(both.stdout).error.code).toBe('ERR_USAGE');
    const bad = await crater(['consume', 'addr', '--from', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/position "yesterday"/);
  });
});

describe('reading does not surprise', () => {
  it('consume --group | head -1, then the same group again: no record is skipped', async () => {
    await server.createTopic('nopipe-loss', 1);
    const lines = Array.from({ length: 3000 }, (_, i) => `v${i}-${'x'.repeat(60)}`);
    expect((await crater(['produce', 'nopipe-loss', '--batch', '1000'], lines.join('\n'))).code).toBe(0);
    const child = spawnCrater(['consume', 'nopipe-loss', '--group', 'piped', '--json'], { broker: server.address });
    child.child.stdin.end();
    const first = await new Promise<string>((resolve) => {
      let buf = '';
      child.child.stdout.setEncoding('utf8').on('data', (d: string) => {
        buf += d;
        const nl = buf.indexOf('\n');
        if (nl !== -1) {
          child.child.stdout.destroy();
          resolve(buf.slice(0, nl));
        }
      });
    });
    expect((await child.done).code).toBe(0);
    expect(JSON.parse(first).value.utf8).toBe(lines[0]);
    const rest = jsonLines((await crater(['consume', 'nopipe-loss', '--group', 'piped', '-e', '--json'])).stdout).map(
      (e) => e.value.utf8,
    );
    // At-least-once: the second run may repeat what was in the pipe, but starts no later than record 2.
    expect(lines.indexOf(rest[0])).toBeLessThanOrEqual(1);
    expect(new Set([JSON.parse(first).value.utf8, ...rest])).toEqual(new Set(lines));
  }, 60_000);

  it('a --group reader is a live member of its group while it runs, and leaves on Ctrl-C', async () => {
    const child = spawnCrater(['consume', 'other', '--group', 'live-g', '--json'], { broker: server.address });
    child.child.stdin.end();
    let stdout = '';
    child.child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    await until(async () => stdout.includes('o1'));
    await until(async () => (await describeGroup('live-g')).members.length === 1);
    const [member] = (await describeGroup('live-g')).members;
    expect(member!.topics.map((t) => [t.topic, t.partitions])).toEqual([['other', [1]]]);
    child.child.kill('SIGINT');
    expect((await child.done).code).toBe(130);
    await until(async () => (await describeGroup('live-g')).members.length === 0);
  }, 60_000);
});

describe('against a MoonMQ broker (one that does not identify itself as crater)', () => {
  it('--from -N, OFFSET and end use only the core protocol and work the same', async () => {
    server.broker.identity = { name: 'MoonMQ', version: 'v0.01' };
    try {
      expect(values(await crater(['consume', 'addr', '--from', '-1', '-e', '--json'])).sort()).toEqual([
        '1:a5',
        '2:b5',
      ]);
      const end = await crater(['consume', 'addr', '--from', 'end', '-e', '--json']);
      expect([end.code, end.stdout]).toEqual([0, '']);
    } finally {
      server.broker.identity = { name: 'crater', version: '0.0.0' };
    }
  });
});
