/**
 * `crater consume --exec` through the built binary against an in-process broker: the per-batch exit-code and
 * JSON-line contract, dead letters, retries, filters, --transactional across a SIGKILL, and SIGINT finishing the
 * running batch. The commands the tests run are small node scripts written to a temp dir.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, connect, type FetchedRecord } from '../../src/client/index.js';
import { crater as run, jsonLines, repoRoot, spawnCrater, useCliBroker } from '../helpers/cli.js';
import { until } from '../helpers/sleep-clock.js';

const server = useCliBroker();
let dir: string;
let client: Client;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-exec-'));
  client = await connect({ broker: server.address });
  // Returned, so it runs only once the client exists (and before the broker stops).
  return async () => {
    await client.close();
  };
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const crater = (args: string[], env: NodeJS.ProcessEnv = {}) => run(args, '', { broker: server.address, env });

/** A node script in the temp dir; `body` sees `lines` (the parsed stdin envelopes) and `env`. */
function script(name: string, body: string): string {
  const file = path.join(dir, `${name}.mjs`);
  fs.writeFileSync(
    file,
    `import fs from 'node:fs';\nconst env = process.env;\nconst text = fs.readFileSync(0, 'utf8');\nconst lines = text.split('\\n').filter(Boolean).map((l) => JSON.parse(l));\n${body}\n`,
  );
  return `${JSON.stringify(process.execPath)} ${JSON.stringify(file)}`;
}

async function readAll(topic: string, isolation?: 'read_committed'): Promise<FetchedRecord[]> {
  const reader = await connect({ broker: server.address });
  try {
    return (await reader.fetch(topic, `reader-${Math.random()}`, { maxRecords: 10_000, isolation })).records;
  } finally {
    await reader.close();
  }
}

async function produce(topic: string, values: string[]): Promise<void> {
  await client.produceBatch(
    topic,
    values.map((v, i) => ({ key: `k${i}`, value: v })),
  );
}

async function committedAll(group: string, topic: string): Promise<boolean> {
  const { offsets } = await client.describeGroup(group);
  const ends = (await client.listOffsets(topic)).partitions;
  return ends.every((p) =>
    offsets.some((o) => o.topic === topic && o.partition === p.partition && o.offset === p.latest),
  );
}

describe('consume --exec', () => {
  it('poison records end in TOPIC.dlq; every other record is processed exactly once; outcome lines are honoured', async () => {
    await server.createTopic('scans', 3);
    const values = Array.from({ length: 60 }, (_, i) => (i % 7 === 3 ? `poison-${i}` : `scan-${i}`));
    await produce('scans', values);
    const out = path.join(dir, 'processed.jsonl');
    const cmd = script(
      'poison',
      `for (const r of lines) {
        if (r.value.utf8.includes('poison')) console.log(JSON.stringify({ partition: r.partition, offset: r.offset, outcome: 'dead-letter', reason: 'poison pill' }));
        else fs.appendFileSync(${JSON.stringify(out)}, JSON.stringify(r) + '\\n');
      }
      console.log('batch of ' + lines.length);`,
    );
    const res = await crater([
      'consume',
      'scans',
      '--group',
      'sorter',
      '--batch-size',
      '8',
      '--batch-timeout',
      '100ms',
      '--exec',
      cmd,
      '--idle-timeout',
      '1s',
      '--json',
    ]);
    expect(res.stderr).toMatch(/consumed 60 records from scans as group sorter/);
    expect(res.code).toBe(0);
    const processed = jsonLines(fs.readFileSync(out, 'utf8')).map((r) => r.value.utf8);
    expect(processed.sort()).toEqual(values.filter((v) => !v.includes('poison')).sort());
    const dlq = await readAll('scans.dlq');
    expect(dlq.map((r) => r.value.toString()).sort()).toEqual(values.filter((v) => v.includes('poison')).sort());
    const summaryStart = res.stdout.lastIndexOf('{\n');
    const summary = JSON.parse(res.stdout.slice(summaryStart));
    expect(summary).toMatchObject({ records: 60, deadLettered: 9, processed: 51, stoppedBy: 'idle' });
    // Lines that are neither outcomes nor produce requests pass through to stdout.
    expect(res.stdout).toMatch(/^batch of \d+$/m);
    expect(await committedAll('sorter', 'scans')).toBe(true);
    // A second run finds nothing left.
    const again = await crater(['consume', 'scans', '--group', 'sorter', '--exec', cmd, '--idle-timeout', '300ms']);
    expect(again.stderr).toMatch(/consumed 0 records/);
  });

  it('a non-zero exit retries the whole batch (CRATER_RETRY_ATTEMPT counts), then dead-letters each record', async () => {
    await server.createTopic('flaky', 1);
    await produce('flaky', ['a', 'b', 'c']);
    const seen = path.join(dir, 'attempts.txt');
    const cmd = script(
      'flaky',
      `fs.appendFileSync(${JSON.stringify(seen)}, env.CRATER_RETRY_ATTEMPT + ':' + lines.length + '\\n'); process.exit(lines.some((r) => r.value.utf8 === 'b') ? 3 : 0);`,
    );
    const res = await crater([
      'consume',
      'flaky',
      '--group',
      'g',
      '--batch-size',
      '3',
      '--exec',
      cmd,
      '--retries',
      '2',
      '--backoff',
      '10ms',
      '--idle-timeout',
      '500ms',
    ]);
    expect(res.code).toBe(0);
    expect(fs.readFileSync(seen, 'utf8')).toBe('0:3\n1:3\n2:3\n');
    const dlq = await readAll('flaky.dlq');
    expect(dlq.map((r) => r.value.toString())).toEqual(['a', 'b', 'c']);
    const withHeaders = (await client.fetch('flaky.dlq', 'h', { headers: true })).records;
    expect(withHeaders[0]!.headers!.find((h) => h.name === 'crater.dlq.error')!.value.toString()).toBe(
      'command exited with code 3',
    );
    expect(res.stderr).toMatch(/2 retries, 3 dead-lettered/);
  });

  it('--filter drops records without running CMD on them, and their offsets still commit', async () => {
    await server.createTopic('mixed', 1);
    await produce('mixed', ['eu-1', 'test-2', 'us-3', 'eu-4']);
    const out = path.join(dir, 'filtered.txt');
    const cmd = script(
      'collect',
      `for (const r of lines) fs.appendFileSync(${JSON.stringify(out)}, r.value.utf8 + '\\n');`,
    );
    const res = await crater([
      'consume',
      'mixed',
      '--group',
      'g',
      '--exec',
      cmd,
      '--filter',
      'value!~^test-',
      '--filter',
      'value~^eu',
      '--batch-timeout',
      '50ms',
      '--idle-timeout',
      '500ms',
    ]);
    expect(res.code).toBe(0);
    expect(fs.readFileSync(out, 'utf8')).toBe('eu-1\neu-4\n');
    expect(res.stderr).toMatch(/2 filtered/);
    expect(await committedAll('g', 'mixed')).toBe(true);
  });

  it('--workers 2: each partition stays on one worker, both work, every record once; --breaker lets a retry through', async () => {
    await server.createTopic('fanout', 4);
    const values = Array.from({ length: 40 }, (_, i) => `r-${i}`);
    await produce('fanout', values);
    const out = path.join(dir, 'workers.txt');
    const cmd = script(
      'workers',
      `if (env.CRATER_RETRY_ATTEMPT === '0' && lines.some((r) => r.value.utf8 === 'r-7')) process.exit(3);
      for (const r of lines) fs.appendFileSync(${JSON.stringify(out)}, env.CRATER_WORKER + ' ' + r.partition + ' ' + r.value.utf8 + '\\n');`,
    );
    const res = await crater([
      'consume',
      'fanout',
      '--group',
      'fan',
      '--exec',
      cmd,
      '--workers',
      '2',
      '--batch-size',
      '5',
      '--batch-timeout',
      '50ms',
      '--retries',
      '2',
      '--backoff',
      '10ms',
      '--breaker',
      '1/30s',
      '--breaker-pause',
      '100ms',
      '--idle-timeout',
      '1s',
      '--json',
    ]);
    expect(res.code).toBe(0);
    const rows = fs
      .readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' '));
    expect(rows.map((r) => r[2]).sort()).toEqual([...values].sort());
    const workerOf = new Map<string, string>();
    for (const [worker, partition] of rows) {
      expect(workerOf.get(partition!) ?? worker, `partition ${partition}`).toBe(worker);
      workerOf.set(partition!, worker!);
    }
    expect(new Set(workerOf.values())).toEqual(new Set(['0', '1']));
    const summary = JSON.parse(res.stdout.slice(res.stdout.lastIndexOf('{\n')));
    expect(summary).toMatchObject({ records: 40, processed: 40, retries: 1, deadLettered: 0 });
    expect(await committedAll('fan', 'fanout')).toBe(true);
  });

  it('refuses a burst below the batch size, and flags that make no sense with --exec', async () => {
    await server.createTopic('refuse', 1);
    const burst = await crater([
      'consume',
      'refuse',
      '--exec',
      'cat',
      '--batch-size',
      '100',
      '--rate',
      '500/s',
      '--burst',
      '50',
    ]);
    expect(burst.code).toBe(2);
    expect(burst.stderr).toMatch(/burst 50 is below maxSize 100/);
    const follow = await crater(['consume', 'refuse', '--exec', 'cat', '--follow']);
    expect(follow.code).toBe(2);
    expect(follow.stderr).toMatch(/--follow cannot be combined with --exec/);
  });

  it('--transactional: produce lines and offsets commit together; a SIGKILL mid-batch loses and duplicates nothing', async () => {
    await server.createTopic('in', 1);
    await server.createTopic('out', 1);
    const values = Array.from({ length: 30 }, (_, i) => `r${i}`);
    await produce('in', values);
    const hold = path.join(dir, 'hold');
    execFileSync('mkfifo', [hold]);
    const cmd = script(
      'transform',
      `for (const r of lines) console.log(JSON.stringify({ produce: { topic: 'out', key: r.key, value: { utf8: 'T-' + r.value.utf8 } } }));
      if (env.HOLD && lines.some((r) => r.value.utf8 === 'r15')) {
        process.stderr.write('holding\\n');
        fs.readFileSync(env.HOLD);
      }`,
    );
    const args = [
      'consume',
      'in',
      '--group',
      'tx',
      '--batch-size',
      '10',
      '--batch-timeout',
      '50ms',
      '--exec',
      cmd,
      '--transactional',
      '--idle-timeout',
      '500ms',
    ];
    const first = spawnCrater(args, { broker: server.address, env: { HOLD: hold } });
    first.child.stdin.end();
    let stderr = '';
    first.child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    await until(() => stderr.includes('holding'), 'the second batch to be running', 20_000);
    expect((await readAll('out', 'read_committed')).length).toBe(10);
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      first.child.once('exit', (_code, signal) => resolve(signal)),
    );
    first.child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    // The command, in a process group of its own, still holds crater's stderr open: release it so the pipe closes.
    fs.writeFileSync(hold, 'release\n');
    await first.done;
    const res = await crater(args);
    expect(res.code).toBe(0);
    const out = (await readAll('out', 'read_committed')).map((r) => r.value.toString());
    expect(out).toEqual(values.map((v) => `T-${v}`));
    expect(await committedAll('tx', 'in')).toBe(true);
  });

  it("never runs two of one worker's CMDs at once, runs a partition's batches in order, commits none before its CMD exited 0", async () => {
    await server.createTopic('serial', 4);
    const values = Array.from({ length: 32 }, (_, i) => `s-${i}`);
    await produce('serial', values);
    const log = path.join(dir, 'serial.log');
    const clientModule = JSON.stringify(pathToFileURL(path.join(repoRoot, 'dist/client/index.js')).href);
    // Each CMD claims its worker's marker file (O_EXCL: a second CMD of the worker running now fails to), reads
    // the group's committed offsets at its start and again after reading its batch, and fails if any of them has
    // passed one of its own records; then logs its records and exits 0.
    const cmd = script(
      'serial',
      `const { connect } = await import(${clientModule});
      const marker = ${JSON.stringify(dir)} + '/running-' + env.CRATER_WORKER;
      try { fs.closeSync(fs.openSync(marker, 'wx')); } catch { fs.appendFileSync(${JSON.stringify(log)}, 'OVERLAP ' + env.CRATER_WORKER + '\\n'); process.exit(1); }
      const client = await connect({ broker: env.CRATER_BROKER });
      try {
        // Before the group's first commit it does not exist yet: nothing is committed.
        const check = async (when) => {
          const { offsets } = await client.describeGroup(env.CRATER_GROUP).catch(() => ({ offsets: [] }));
          for (const r of lines) {
            const c = offsets.find((o) => o.partition === r.partition);
            if (c && c.offset > BigInt(r.offset)) fs.appendFileSync(${JSON.stringify(log)}, 'EARLY ' + when + ' ' + r.partition + '@' + r.offset + '\\n');
          }
        };
        await check('start');
        await check('end');
        fs.appendFileSync(${JSON.stringify(log)}, lines.map((r) => r.partition + ' ' + r.offset + ' ' + r.value.utf8).join('\\n') + '\\n');
      } catch (e) {
        fs.appendFileSync(${JSON.stringify(log)}, 'ERROR ' + e.message + '\\n');
      } finally {
        await client.close();
        fs.rmSync(marker);
      }`,
    );
    const res = await crater([
      'consume',
      'serial',
      '--group',
      'serial',
      '--workers',
      '2',
      '--batch-size',
      '4',
      '--batch-timeout',
      '20ms',
      '--commit-interval',
      '10ms',
      '--exec',
      cmd,
      '--idle-timeout',
      '1s',
    ]);
    expect(res.stderr).toMatch(/consumed 32 records/);
    expect(res.code).toBe(0);
    const entries = fs.readFileSync(log, 'utf8').split('\n').filter(Boolean);
    expect(entries.filter((l) => /^(OVERLAP|EARLY|ERROR)/.test(l))).toEqual([]);
    const records = entries.map((l) => l.split(' '));
    expect(records.map((r) => r[2]).sort()).toEqual([...values].sort());
    for (const p of ['0', '1', '2', '3']) {
      const offsets = records.filter((r) => r[0] === p).map((r) => BigInt(r[1]!));
      expect(offsets).toEqual([...offsets].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    expect(await committedAll('serial', 'serial')).toBe(true);
  }, 90_000);

  it('SIGINT lets the running batch finish, commits it, and exits 130', async () => {
    await server.createTopic('slow', 1);
    await produce('slow', ['x', 'y']);
    const fifo = path.join(dir, 'go');
    execFileSync('mkfifo', [fifo]);
    const cmd = script('slow', `process.stderr.write('started\\n'); fs.readFileSync(${JSON.stringify(fifo)});`);
    const child = spawnCrater(['consume', 'slow', '--group', 's', '--batch-size', '2', '--exec', cmd], {
      broker: server.address,
    });
    child.child.stdin.end();
    let stderr = '';
    child.child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    await until(() => stderr.includes('started'), 'the batch to start', 20_000);
    child.child.kill('SIGINT');
    fs.writeFileSync(fifo, 'go\n');
    const res = await child.done;
    expect(res.code).toBe(130);
    expect(res.stderr).toMatch(/consumed 2 records .* stopped by interrupt/);
    expect(await committedAll('s', 'slow')).toBe(true);
  });
});
