/**
 * The CLI frame end to end: the real `bin/run.js` for help, version and unknown commands, and a throwaway oclif CLI
 * in a temp dir whose commands extend the compiled BaseCommand, for the error, JSON, colour, SIGINT and EPIPE
 * contracts (crater ships no command that exists only to fail). `npm test` builds first, so dist/ is current.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, mkdir, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = (await import(pathToFileURL(join(root, 'package.json')).href, { with: { type: 'json' } })).default as {
  version: string;
};
const ESC = '\u001b[';

interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true', ...extra };
  for (const key of ['NO_COLOR', 'FORCE_COLOR', 'DEBUG', 'CRATER_BROKER']) if (!(key in extra)) delete env[key];
  return env;
}

function collect(child: ChildProcess): Promise<Result> {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (code, signal) => done({ code, signal, stdout, stderr }));
  });
}

function run(script: string, args: string[], env: Record<string, string> = {}): Promise<Result> {
  return collect(spawn(process.execPath, [script, ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] }));
}

const crater = (args: string[], env?: Record<string, string>) => run(join(root, 'bin/run.js'), args, env);

describe('crater binary', () => {
  it('--version prints the package version', async () => {
    const r = await crater(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`crater/${pkg.version}`);
  });

  it('--version, answered before oclif loads, prints exactly what oclif would (its user agent)', async () => {
    const { Config } = await import('@oclif/core');
    const config = await Config.load(root);
    const r = await crater(['--version', '--json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${config.userAgent}\n`);
    expect(r.stderr).toBe('');
    // Anything else still goes through oclif.
    const unknown = await crater(['-v']);
    expect(unknown.code).toBe(2);
  });

  it('--version into a closed pipe exits 0 quietly; into a full disk it says so on stderr and exits 1', async () => {
    // The reader end is closed before node has started, so the child's one write meets EPIPE.
    const child = spawn(process.execPath, [join(root, 'bin/run.js'), '--version'], {
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    const closed = await collect(child);
    expect(closed).toMatchObject({ code: 0, stderr: '' });
    const devFull = await open('/dev/full', 'w');
    const full = await collect(
      spawn(process.execPath, [join(root, 'bin/run.js'), '--version'], {
        env: cleanEnv(),
        stdio: ['ignore', devFull.fd, 'pipe'],
      }),
    ).finally(() => devFull.close());
    expect(full.code).toBe(1);
    expect(full.stderr).toBe('crater: cannot write to stdout (ENOSPC)\n');
  });

  it('--help lists the commands and topics', async () => {
    const r = await crater(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('USAGE');
    expect(r.stdout).toMatch(/COMMANDS[\s\S]*help/);
    expect(r.stdout).toContain('autocomplete');
  });

  it('an unknown command exits 2 (usage) with one error line', async () => {
    const r = await crater(['no-such-command']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('Error [ERR_USAGE]: unknown command "no-such-command"');
  });

  it('NO_COLOR turns off colour in help even when FORCE_COLOR asks for it', async () => {
    const forced = await crater(['--help'], { FORCE_COLOR: '1' });
    expect(forced.stdout).toContain(ESC);
    const plain = await crater(['--help'], { FORCE_COLOR: '1', NO_COLOR: '1' });
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toContain(ESC);
  });
});

describe('BaseCommand contracts (fixture CLI)', () => {
  let dir: string;
  let launcher: string;

  const base = pathToFileURL(join(root, 'dist/cli/index.js')).href;
  const errors = pathToFileURL(join(root, 'dist/errors.js')).href;
  const commands: Record<string, string> = {
    wrapped: `export default class extends BaseCommand {
      async run() {
        await this.parse(this.constructor);
        const enoent = Object.assign(new Error("ENOENT: no such file or directory, open 'seg.log'"), { code: 'ENOENT' });
        throw new StorageError('cannot open the segment', { cause: new Error('recovery failed', { cause: enoent }) });
      }
    }`,
    corrupt: `export default class extends BaseCommand {
      async run() { await this.parse(this.constructor); throw new CorruptDataError('seg.log', 42, 'header crc mismatch'); }
    }`,
    incomplete: `export default class extends BaseCommand {
      async run() { await this.parse(this.constructor); this.fail(ExitCode.INCOMPLETE, 'got 3 of 10 records'); }
    }`,
    numbers: `export default class extends BaseCommand {
      async run() { await this.parse(this.constructor); this.out('human'); return { offset: 5n, producerId: 2n ** 63n + 1n, key: Buffer.from('k') }; }
    }`,
    connect: `export default class extends BaseCommand {
      static flags = connectionFlags();
      async run() {
        const { flags } = await this.parse(this.constructor);
        this.out(formatHostPort(flags.broker) + ' ' + flags.timeout);
      }
    }`,
    color: `export default class extends BaseCommand {
      async run() { await this.parse(this.constructor); this.out(this.chalk.red('red')); }
    }`,
    flood: `export default class extends BaseCommand {
      async run() {
        await this.parse(this.constructor);
        const lines = this.jsonLines();
        for (let i = 0n; !this.signal.aborted; i++) if (!(await lines.write({ offset: i }))) break;
        lines.detach();
        this.diag('stopped: ' + this.stopReason);
      }
    }`,
    'flood-naive': `export default class extends BaseCommand {
      async run() {
        await this.parse(this.constructor);
        for (let i = 0; ; i++) { this.out('line ' + i); if (i % 100 === 0) await new Promise((r) => setImmediate(r)); }
      }
    }`,
    wait: `export default class extends BaseCommand {
      async run() {
        await this.parse(this.constructor);
        const signal = this.signal;
        const keepAlive = setInterval(() => {}, 60_000);
        this.diag('ready');
        await new Promise((r) => signal.addEventListener('abort', r));
        clearInterval(keepAlive);
        this.diag('stopped: ' + this.stopReason);
      }
    }`,
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crater-cli-frame-'));
    await mkdir(join(dir, 'commands'));
    const oclif = { bin: 'fixture', commands: './commands', topicSeparator: ' ' };
    await writeFile(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'fixture', version: '1.0.0', type: 'module', oclif }),
    );
    const header = `import { BaseCommand, ExitCode, connectionFlags, formatHostPort } from '${base}';\nimport { CorruptDataError, StorageError } from '${errors}';\n`;
    for (const [name, body] of Object.entries(commands))
      await writeFile(join(dir, 'commands', `${name}.js`), header + body);
    launcher = join(dir, 'run.js');
    const core = pathToFileURL(join(root, 'node_modules/@oclif/core/lib/index.js')).href;
    await writeFile(launcher, `import { execute } from '${core}';\nawait execute({ dir: import.meta.url });\n`);
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const fixture = (args: string[], env?: Record<string, string>) => run(launcher, args, env);

  it('a CraterError maps to its exit code with one stderr line and no stack', async () => {
    const r = await fixture(['corrupt']);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual(['Error [ERR_CORRUPT]: seg.log at position 42: header crc mismatch']);
  });

  it('--verbose and DEBUG add the stack', async () => {
    const verbose = await fixture(['corrupt', '--verbose']);
    expect(verbose.code).toBe(3);
    expect(verbose.stderr).toMatch(/\n\s+at /);
    const debug = await fixture(['corrupt'], { DEBUG: '1' });
    expect(debug.stderr).toMatch(/\n\s+at /);
  });

  it('the cause chain: one line by default, each cause with its code and stack under --verbose and DEBUG', async () => {
    const plain = await fixture(['wrapped']);
    expect(plain.code).toBe(1);
    expect(plain.stderr.trim().split('\n')).toEqual(['Error [ERR_STORAGE]: cannot open the segment']);
    for (const r of [await fixture(['wrapped', '--verbose']), await fixture(['wrapped'], { DEBUG: '1' })]) {
      const heads = r.stderr.split('\n').filter((line) => !/^\s+at /.test(line) && line !== '');
      expect(heads).toEqual([
        'Error [ERR_STORAGE]: StorageError: cannot open the segment',
        'Caused by [ERR_FAILURE]: Error: recovery failed',
        "Caused by [ENOENT]: Error: ENOENT: no such file or directory, open 'seg.log'",
      ]);
      expect(r.stderr.match(/\n\s+at /g)?.length).toBeGreaterThanOrEqual(3);
    }
  });

  it('--json errors print {"error":{code,message}} on stdout and the line on stderr', async () => {
    const r = await fixture(['corrupt', '--json']);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toEqual({
      error: { code: 'ERR_CORRUPT', message: 'seg.log at position 42: header crc mismatch' },
    });
    expect(r.stderr).toContain('ERR_CORRUPT');
  });

  it('fail() exits with the contract code', async () => {
    const r = await fixture(['incomplete', '--json']);
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout)).toEqual({ error: { code: 'ERR_INCOMPLETE', message: 'got 3 of 10 records' } });
  });

  it('--json results follow the bigint rule, and human lines stay off stdout', async () => {
    const r = await fixture(['numbers', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ offset: 5, producerId: '9223372036854775809', key: 'aw==' });
  });

  it('a bad flag value is a usage error: exit 2, one line naming the flag', async () => {
    const r = await fixture(['connect', '--broker', '::1:9092']);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Error \[ERR_USAGE\]: Parsing --broker: .*brackets.*\(see --help\)$/);
  });

  it('an unknown flag is a usage error too', async () => {
    const r = await fixture(['connect', '--nope', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error.code).toBe('ERR_USAGE');
  });

  it('connection flags read CRATER_BROKER and parse IPv6 and timeouts', async () => {
    const fromEnv = await fixture(['connect'], { CRATER_BROKER: '[::1]:7001' });
    expect(fromEnv.stdout.trim()).toBe('[::1]:7001 10000');
    const fromFlag = await fixture(['connect', '-b', 'localhost:7002', '--timeout', '5s'], { CRATER_BROKER: 'x:1' });
    expect(fromFlag.stdout.trim()).toBe('localhost:7002 5000');
    const byDefault = await fixture(['connect']);
    expect(byDefault.stdout.trim()).toBe('127.0.0.1:9092 10000');
  });

  it('colour follows FORCE_COLOR and NO_COLOR, and is off in a pipe by default', async () => {
    expect((await fixture(['color'])).stdout).toBe('red\n');
    expect((await fixture(['color'], { FORCE_COLOR: '1' })).stdout).toContain(`${ESC}31m`);
    expect((await fixture(['color'], { FORCE_COLOR: '3', NO_COLOR: '1' })).stdout).toBe('red\n');
  });

  async function closeStdoutEarly(command: string): Promise<Result> {
    const child = spawn(process.execPath, [launcher, command], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    await new Promise<void>((done) => child.stdout.once('data', () => done()));
    child.stdout.destroy();
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done) =>
      child.on('close', (c, s) => done([c, s])),
    );
    return { code, signal, stdout: '', stderr };
  }

  it('a closed stdout ends a cooperating command quietly with exit 0', async () => {
    const r = await closeStdoutEarly('flood');
    expect(r.code).toBe(0);
    expect(r.stderr.trim()).toBe('stopped: stdout-closed');
  });

  it('a closed stdout ends a command that ignores the signal quietly with exit 0', async () => {
    const r = await closeStdoutEarly('flood-naive');
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('SIGINT aborts the signal and the command exits 130', async () => {
    const child = spawn(process.execPath, [launcher, 'wait'], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const result = collect(child);
    await new Promise<void>((done) => {
      let seen = '';
      child.stderr.on('data', (d: Buffer) => {
        seen += d.toString();
        if (seen.includes('ready')) done();
      });
    });
    child.kill('SIGINT');
    const r = await result;
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('stopped: interrupt');
  });
});
