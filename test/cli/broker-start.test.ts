/**
 * `crater broker start` and `crater broker hash-password` as real child processes over the compiled tree
 * (`npm test` builds first, so dist/ is current).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/broker/auth.js';
import { Op } from '../../src/protocol/opcodes.js';
import { until } from '../helpers/eventually.js';
import { RawClient } from '../helpers/raw-client.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'bin/run.js');
const children: ChildProcess[] = [];
const dirs: string[] = [];

function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true' };
  for (const k of Object.keys(env)) if (k.startsWith('CRATER_')) delete env[k];
  return env;
}

interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function launch(args: string[], stdin: 'pipe' | 'ignore' = 'pipe'): Running {
  const child = spawn(process.execPath, [bin, ...args], { env: cleanEnv(), stdio: [stdin, 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

function waitForLine(r: Running, pattern: RegExp, timeoutMs = 20_000): Promise<RegExpMatchArray> {
  return until(
    () => {
      const m = pattern.exec(r.stdout());
      if (m) return m;
      if (r.child.exitCode !== null) throw new Error(`exited ${r.child.exitCode}: ${r.stderr()}`);
      return undefined;
    },
    { timeoutMs, intervalMs: 25, what: () => `${String(pattern)} on stdout (stderr: ${r.stderr()})` },
  );
}

afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await Promise.all(dirs.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
});

describe('crater broker start', () => {
  it('prints exactly one CRATER_BROKER= line, serves clients, and exits 0 on SIGTERM', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'crater-cli-'));
    dirs.push(dataDir);
    const r = launch(['broker', 'start', '--port', '0', '--data-dir', dataDir, '--topic', 'orders:3']);
    const m = await waitForLine(r, /^CRATER_BROKER=127\.0\.0\.1:(\d+)\n/);
    const client = await RawClient.authenticated(Number(m[1]));
    const list = await client.requestFrame(Op.LIST_TOPICS);
    expect(list.op).toBe(Op.TOPIC_LIST);
    expect(list.payload.includes(Buffer.from('orders'))).toBe(true);
    await client.close();

    const second = launch(['broker', 'start', '--port', '0', '--data-dir', dataDir]);
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toMatch(/in use by another broker/);
    expect(second.stdout()).toBe('');

    r.child.kill('SIGTERM');
    expect(await r.exited).toBe(0);
    expect(r.stdout().split('\n').filter(Boolean)).toHaveLength(1);
    await expect(fs.access(path.join(dataDir, 'orders', 'partition-3'))).resolves.toBeUndefined();
    await expect(fs.access(path.join(dataDir, '.lock'))).rejects.toThrow();
  }, 60_000);

  it('--json prints the address as an object; SIGINT stops gracefully with exit 0 and removes the temp dir', async () => {
    const r = launch(['broker', 'start', '--port', '0', '--json']);
    await waitForLine(r, /\n/);
    const info = JSON.parse(r.stdout()) as { broker: string; port: number; dataDir: string };
    expect(info.broker).toBe(`127.0.0.1:${info.port}`);
    await expect(fs.access(info.dataDir)).resolves.toBeUndefined();
    r.child.kill('SIGINT');
    expect(await r.exited).toBe(0);
    await expect(fs.access(info.dataDir)).rejects.toThrow();
  }, 60_000);

  it('--exit-on-stdin-close stops when stdin ends', async () => {
    const r = launch(['broker', 'start', '--port', '0', '--exit-on-stdin-close']);
    await waitForLine(r, /^CRATER_BROKER=/);
    r.child.stdin!.end();
    expect(await r.exited).toBe(0);
  }, 60_000);
});

describe('crater broker start: one address by default, and a pid to stop it by', () => {
  it('says in its help that it listens on 9092 unless --port 0 asks for a free port', async () => {
    const r = launch(['broker', 'start', '--help']);
    expect(await r.exited).toBe(0);
    const text = r.stdout().replace(/\s+/g, ' ');
    expect(text).toContain('Listens on 127.0.0.1:9092 by default');
    expect(text).toMatch(/--port=<value> \[env: CRATER_PORT\] Port; 0 picks a free one \[default: 9092/);
  }, 60_000);

  it('--pid-file holds the broker\'s own pid while it runs (kill "$(cat FILE)" stops it) and is removed on exit', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crater-pid-'));
    dirs.push(dir);
    const pidFile = path.join(dir, 'broker.pid');
    const r = launch(['broker', 'start', '--port', '0', '--pid-file', pidFile]);
    await waitForLine(r, /^CRATER_BROKER=/);
    const pid = Number((await fs.readFile(pidFile, 'utf8')).trim());
    expect(pid).toBe(r.child.pid);
    process.kill(pid, 'SIGTERM');
    expect(await r.exited).toBe(0);
    await expect(fs.access(pidFile)).rejects.toThrow();
  }, 60_000);
});

describe('crater broker hash-password', () => {
  it('hashes the password read from stdin so that it verifies', async () => {
    const r = launch(['broker', 'hash-password', '--iterations', '1000']);
    r.child.stdin!.end('s3cret\n');
    expect(await r.exited).toBe(0);
    const hash = r.stdout().trim();
    expect(hash).toMatch(/^pbkdf2-sha256\$1000\$[0-9a-f]{32}\$[0-9a-f]{64}$/);
    expect(await verifyPassword('s3cret', hash)).toBe(true);
    expect(await verifyPassword('s3cret\n', hash)).toBe(false);
  }, 60_000);
});
