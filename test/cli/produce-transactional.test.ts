/**
 * `crater produce --transactional --producer-name NAME` through the built binary against an in-process broker:
 * commit at the end of input, abort on a failed record (exit 1), on SIGINT (exit 130) and on SIGTERM (exit 1),
 * each saying why on stderr; `consume --isolation read_committed` then shows all of a committed input and nothing
 * of an aborted one. `npm test` builds first, so dist/ is current.
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Broker } from '../../src/broker/broker.js';
import { connect } from '../../src/client/client.js';
import { TxnState } from '../../src/storage/txn-state-codec.js';
import { eventually } from '../helpers/eventually.js';
import {
  type CliResult,
  type CliRun,
  createTopic as createTopicAt,
  crater as run,
  spawnCrater as spawnAt,
  useCliBroker,
} from '../helpers/cli.js';

const server = useCliBroker();
let broker: Broker;
let dataDir: string;
let address: string;

function spawnCrater(args: string[]): CliRun {
  return spawnAt(args, { broker: address });
}

function crater(args: string[], input: string): Promise<CliResult> {
  return run(args, input, { broker: address });
}

const createTopic = (name: string, partitions = 1): Promise<void> => createTopicAt(address, name, partitions);

async function consumed(topic: string, isolation: 'read_committed' | 'read_uncommitted'): Promise<string[]> {
  const r = await crater(
    [
      'consume',
      topic,
      '--group',
      `g-${isolation}-${Math.random()}`,
      '--isolation',
      isolation,
      '-e',
      '--format',
      '%s\n',
    ],
    '',
  );
  expect(r.stderr).not.toMatch(/Error/);
  return r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .sort();
}

/** Waits (polling up to a deadline) until the producer's transaction has appended `n` records. */
async function untilAppended(topic: string, n: number): Promise<void> {
  const log = broker.topics.requireTopic(topic).partitions[0]!;
  await eventually(() => log.read(0n, { maxRecords: 1_000 }).length >= n, {
    timeoutMs: 10_000,
    intervalMs: 20,
    what: `${n} records appended to ${topic}`,
  });
}

beforeAll(async () => {
  ({ broker, dataDir, address } = server);
});

describe('crater produce --transactional', () => {
  it('commits the whole input at its end; read_committed consumers see every record', async () => {
    await createTopic('t-commit', 2);
    const r = await crater(
      ['produce', 't-commit', '--producer-name', 'cli-commit', '--transactional', '--batch', '2'],
      'a\nb\nc\n',
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('transaction committed: 3 records');
    expect(broker.transactions.get('cli-commit')!.state).toBe(TxnState.COMPLETE_COMMIT);
    expect(await consumed('t-commit', 'read_committed')).toEqual(['a', 'b', 'c']);
  }, 60_000);

  it('aborts on the first failed record, says why and exits 1; read_committed sees none of it', async () => {
    await createTopic('t-fail');
    const input = '{"value":{"utf8":"ok"}}\nnot json\n{"value":{"utf8":"never"}}\n';
    const r = await crater(
      ['produce', 't-fail', '--producer-name', 'cli-fail', '--transactional', '--input', 'jsonl'],
      input,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/transaction aborted \(failure: .+\)/);
    expect(broker.transactions.get('cli-fail')!.state).toBe(TxnState.COMPLETE_ABORT);
    expect(await consumed('t-fail', 'read_committed')).toEqual([]);
    // The record appended before the failure stays in the log, visible to read_uncommitted only; the rest never went.
    expect(await consumed('t-fail', 'read_uncommitted')).toEqual(['ok']);
  }, 60_000);

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 1],
  ] as const)(
    'aborts on %s, says so on stderr and exits %i',
    async (signal, exitCode) => {
      const topic = `t-${signal.toLowerCase()}`;
      await createTopic(topic);
      const run = spawnCrater(['produce', topic, '--producer-name', `cli-${signal}`, '--transactional']);
      run.child.stdin.write('one\ntwo\n');
      await untilAppended(topic, 2);
      run.child.kill(signal);
      const r = await run.done;
      expect(r.code).toBe(exitCode);
      expect(r.stderr).toContain(`transaction aborted (${signal})`);
      expect(broker.transactions.get(`cli-${signal}`)!.state).toBe(TxnState.COMPLETE_ABORT);
      expect(await consumed(topic, 'read_committed')).toEqual([]);
      expect(await consumed(topic, 'read_uncommitted')).toEqual(['one', 'two']);
    },
    60_000,
  );

  it('refuses --transactional without --producer-name as a usage error, sending nothing', async () => {
    await createTopic('t-usage');
    const r = await crater(['produce', 't-usage', '--transactional'], 'x\n');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/producer-name/);
    expect(broker.topics.requireTopic('t-usage').partitions[0]!.logEndOffset).toBe(0n);
  }, 60_000);
});

describe('reading around an open transaction', () => {
  it('consume -e under read_committed stops at the LSO; offsets shows it; segments inspect shows flags and markers', async () => {
    await createTopic('t-open');
    const client = await connect({ broker: address });
    const producer = client.producer({ producerName: 'cli-open' });
    try {
      await client.produce('t-open', { value: 'before' });
      await producer.beginTransaction();
      await producer.send('t-open', { value: 'pending' });
      expect(await consumed('t-open', 'read_committed')).toEqual(['before']);
      const offsets = await crater(['offsets', 't-open', '--json'], '');
      expect(offsets.code).toBe(0);
      const [p] = (JSON.parse(offsets.stdout) as { partitions: Array<{ lso: number; latest: number }> }).partitions;
      expect(p!.lso).toBeLessThan(p!.latest);
      await producer.commitTransaction();
    } finally {
      await producer.close();
      await client.close();
    }
    expect(await consumed('t-open', 'read_committed')).toEqual(['before', 'pending']);
    const inspect = await crater(['segments', 'inspect', path.join(dataDir, 't-open'), '--jsonl'], '');
    const lines = inspect.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, any>);
    const records = lines.filter((l) => 'attrs' in l);
    expect(records.map((r) => [r.transactional, r.control])).toEqual([
      [false, false],
      [true, false],
      [false, true],
    ]);
    const marker = records[2]!.controlMarker as Record<string, unknown>;
    expect(marker.marker).toBe('COMMIT');
    expect(String(records[1]!.producerId)).toBe(String(marker.producerId));
  }, 60_000);
});
