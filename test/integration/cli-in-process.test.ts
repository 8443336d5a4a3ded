/**
 * The command base (cli/base-command.ts) and the error report (cli/error-report.ts) exercised in-process: commands
 * from src/commands run through oclif against a real broker, and the test reads what they wrote and how they ended.
 * The same contracts are checked through the built binary in test/cli/; these runs are the ones coverage sees.
 */
import { describe, expect, it } from 'vitest';
import commandNotFound from '../../src/cli/hooks/command-not-found.js';
import SegmentsInspect from '../../src/commands/segments/inspect.js';
import ShareConsume from '../../src/commands/share/consume.js';
import StateDump from '../../src/commands/state/dump.js';
import TopicCreate from '../../src/commands/topic/create.js';
import TopicDescribe from '../../src/commands/topic/describe.js';
import TopicList from '../../src/commands/topic/list.js';
import { fill } from '../helpers/share.js';
import { inProcess, loadConfig, runInProcess } from '../helpers/in-process-cli.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker();

async function broker(): Promise<string> {
  const b = await env.start();
  return `127.0.0.1:${b.address.port}`;
}

const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');

describe('data on stdout, diagnostics on stderr', () => {
  it('human output is lines of data; --json replaces it with one document and nothing else', async () => {
    const at = await broker();
    expect(await runInProcess(TopicCreate, ['orders', '--partitions', '2', '--broker', at])).toEqual({
      code: 0,
      stdout: 'created topic orders with 2 partitions\n',
      stderr: '',
    });
    await runInProcess(TopicCreate, ['audit', '--broker', at]);
    const human = await runInProcess(TopicList, ['--broker', at]);
    expect(human.code).toBe(0);
    expect(lines(human.stdout).sort()).toEqual(['audit', 'orders']);
    const json = await runInProcess(TopicList, ['--broker', at, '--json']);
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout).topics.sort()).toEqual(['audit', 'orders']);
    const described = JSON.parse((await runInProcess(TopicDescribe, ['orders', '--broker', at, '--json'])).stdout);
    expect(described).toMatchObject({ name: 'orders' });
  });

  it('a long-running command streams JSON lines, reports on stderr, and exits 4 when it stops short of -n', async () => {
    const at = await broker();
    await runInProcess(TopicCreate, ['jobs', '--partitions', '1', '--broker', at]);
    const c = await env.client();
    await c.shareGroups.alter('g', { 'auto.offset.reset': 'earliest' });
    await fill(c, 'jobs', 2);
    const got = await runInProcess(ShareConsume, ['jobs', '--group', 'g', '-n', '2', '--json', '--broker', at]);
    expect(got.code, got.stderr).toBe(0);
    expect(lines(got.stdout).map((l) => [JSON.parse(l).value.utf8, JSON.parse(l).deliveryCount])).toEqual([
      ['v0', 1],
      ['v1', 1],
    ]);
    expect(got.stderr).toBe(
      'share group g: 2 records from jobs (accepted 2, released 0, rejected 0); stopped: count\n',
    );
    const idle = await runInProcess(ShareConsume, [
      'jobs',
      '--group',
      'g',
      '-n',
      '1',
      '--idle-timeout',
      '200ms',
      '--broker',
      at,
    ]);
    expect(idle).toMatchObject({ code: 4, stdout: '' });
    expect(idle.stderr).toMatch(/0 records from jobs .*stopped: idle/);
  });
});

describe('errors', () => {
  it('a broker error is exit 1 and one stderr line; --json adds {"error"} on stdout; --verbose adds the stack', async () => {
    const at = await broker();
    const plain = await runInProcess(TopicDescribe, ['nope', '--broker', at]);
    expect(plain).toEqual({
      code: 1,
      stdout: '',
      stderr: "Error [ERR_BROKER]: ERR_TOPIC_MISSING (5): topic 'nope' does not exist\n",
    });
    const json = await runInProcess(TopicDescribe, ['nope', '--broker', at, '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: 'ERR_BROKER', message: "ERR_TOPIC_MISSING (5): topic 'nope' does not exist" },
    });
    expect(lines(json.stderr)).toHaveLength(1);
    const verbose = await runInProcess(TopicDescribe, ['nope', '--broker', at, '--verbose']);
    expect(verbose.code).toBe(1);
    expect(verbose.stderr).toMatch(/^Error \[ERR_BROKER\]: BrokerError: ERR_TOPIC_MISSING/);
    expect(lines(verbose.stderr).length).toBeGreaterThan(1);
    expect(verbose.stderr).toMatch(/\n {4}at /);
    // DEBUG set does what --verbose does.
    const debug = await runInProcess(TopicDescribe, ['nope', '--broker', at], { DEBUG: 'crater' });
    expect(lines(debug.stderr).length).toBeGreaterThan(1);
  });

  it('a parse error is exit 2 (ERR_USAGE) on one line, with a missing argument named and described', async () => {
    const at = await broker();
    expect(await runInProcess(TopicDescribe, ['--broker', at])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'Error [ERR_USAGE]: missing argument NAME (Topic name) (see --help)\n',
    });
    const unknown = await runInProcess(TopicList, ['--broker', at, '--bogus', '--json']);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout)).toEqual({
      error: { code: 'ERR_USAGE', message: 'Nonexistent flag: --bogus (see --help)' },
    });
    const badAddress = await runInProcess(TopicList, ['--broker', 'host:notaport']);
    expect(badAddress.code).toBe(2);
    expect(badAddress.stderr).toBe(
      "Error [ERR_USAGE]: Parsing --broker: broker address 'host:notaport': port 'notaport' is not a number (see --help)\n",
    );
  });

  it('CRATER_BROKER reaches the command as the --broker default, and a flag beats it', async () => {
    const at = await broker();
    await runInProcess(TopicCreate, ['from-env', '--broker', at]);
    const viaEnv = await runInProcess(TopicList, [], { CRATER_BROKER: at });
    expect(viaEnv).toEqual({ code: 0, stdout: 'from-env\n', stderr: '' });
    const flagWins = await runInProcess(TopicList, ['--broker', at], { CRATER_BROKER: 'host:notaport' });
    expect(flagWins.code).toBe(0);
  });
});

describe('a mistyped command (the command_not_found hook)', () => {
  const notFound = async (id: string, argv: string[] = []) => {
    const config = await loadConfig();
    return inProcess(() => commandNotFound.call({} as never, { id, argv, config, context: {} as never }));
  };

  it('is a usage error naming the closest commands, on one line, with {"error"} on stdout under --json', async () => {
    expect(await notFound('topic:creat', ['orders'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'Error [ERR_USAGE]: unknown command "topic creat"; did you mean "topic create"?\n',
    });
    const json = await notFound('consme', ['orders', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: 'ERR_USAGE', message: 'unknown command "consme"; did you mean "consume"?' },
    });
    const far = await notFound('zzzzzzzzzz');
    expect(far.stderr).toBe('Error [ERR_USAGE]: unknown command "zzzzzzzzzz"; run `crater --help` for the list\n');
  });
});

describe('the offline readers', () => {
  it('segments inspect and state dump read a broker data dir; --verify exits 3 only on a finding', async () => {
    const at = await broker();
    await runInProcess(TopicCreate, ['logs', '--partitions', '1', '--broker', at]);
    const c = await env.client();
    await c.produceBatch('logs', [{ value: 'one' }, { value: 'two' }]);
    await env.broker.stop();
    const inspect = await runInProcess(SegmentsInspect, [env.dataDir, '--jsonl', '--verify']);
    expect(inspect.code, inspect.stderr).toBe(0);
    const out = lines(inspect.stdout).map((l) => JSON.parse(l));
    expect(out.filter((l) => l.type === 'record' && l.topic === 'logs').map((l) => l.valueSize)).toEqual([3, 3]);
    expect(out.at(-1)).toMatchObject({ type: 'summary', records: 2, findings: 0 });
    // No idempotent producer ever wrote here: state dump reports that as a finding, which --verify makes exit 3.
    const dump = await runInProcess(StateDump, [env.dataDir, '--json']);
    expect(dump.code, dump.stderr).toBe(0);
    expect(JSON.parse(dump.stdout).findings.map((f: { kind: string }) => f.kind)).toEqual(['not-producer-state']);
    expect((await runInProcess(StateDump, [env.dataDir, '--json', '--verify'])).code).toBe(3);
    const missing = await runInProcess(SegmentsInspect, [`${env.dataDir}/no-such-topic`]);
    expect(missing).toEqual({
      code: 2,
      stdout: '',
      stderr: `Error [ERR_USAGE]: path "${env.dataDir}/no-such-topic" does not exist\n`,
    });
  });
});
