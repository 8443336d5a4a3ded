/**
 * `crater group reset-offsets G TOPIC --to ... --dry-run|--execute` (issue 16 item 9): the dry run shows current and
 * new offsets and moves nothing; --execute commits them (consume then reads from there); a group with a live member
 * is refused. Built binary, in-process broker on port 0.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import { jsonLines, useCliBroker } from '../helpers/cli.js';

const server = useCliBroker();

const { crater } = server;

beforeAll(async () => {
  await server.createTopic('ledger', 2);
  await crater(['produce', 'ledger', '-p', '1'], 'a1\na2\na3\n');
  await crater(['produce', 'ledger', '-p', '2'], 'b1\nb2\n');
  // The group reads everything, so its committed offsets are the log ends.
  expect((await crater(['consume', 'ledger', '--group', 'acct', '-e'])).code).toBe(0);
}, 60_000);

describe('group reset-offsets', () => {
  it('--dry-run reports current and target offsets and changes nothing', async () => {
    const r = await crater(['group', 'reset-offsets', 'acct', 'ledger', '--to', 'earliest', '--dry-run', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.executed).toBe(false);
    expect(report.partitions.map((p: { partition: number; target: number }) => [p.partition, p.target])).toEqual([
      [1, 0],
      [2, 0],
    ]);
    expect(report.partitions.every((p: { current: number }) => p.current > 0)).toBe(true);
    const after = await crater(['consume', 'ledger', '--group', 'acct', '-e', '--json']);
    expect(jsonLines(after.stdout)).toEqual([]);
  });

  it('--execute --to earliest --partition 2 rewinds only partition 2', async () => {
    const r = await crater([
      'group',
      'reset-offsets',
      'acct',
      'ledger',
      '--to',
      'earliest',
      '--partition',
      '2',
      '--execute',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).partitions.map((p: { partition: number }) => p.partition)).toEqual([2]);
    const again = await crater(['consume', 'ledger', '--group', 'acct', '-e', '--json']);
    expect(jsonLines(again.stdout).map((e) => e.value.utf8)).toEqual(['b1', 'b2']);
  });

  it('--to -1 --execute leaves the last record of each partition to read', async () => {
    expect((await crater(['group', 'reset-offsets', 'acct', 'ledger', '--to', '-1', '--execute'])).code).toBe(0);
    const again = await crater(['consume', 'ledger', '--group', 'acct', '-e', '--json']);
    expect(
      jsonLines(again.stdout)
        .map((e) => e.value.utf8)
        .sort(),
    ).toEqual(['a3', 'b2']);
  });

  it('is refused (exit 1) while the group has a live member, and needs --dry-run or --execute (exit 2)', async () => {
    const member = await connect({ broker: server.address });
    try {
      await member.joinGroup('acct', ['ledger']);
      const r = await crater(['group', 'reset-offsets', 'acct', 'ledger', '--to', 'earliest', '--execute', '--json']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/live member/);
      expect(JSON.parse(r.stdout).error.code).toBe('ERR_FAILURE');
    } finally {
      await member.close();
    }
    const neither = await crater(['group', 'reset-offsets', 'acct', 'ledger', '--to', 'earliest']);
    expect(neither.code).toBe(2);
  });
});
