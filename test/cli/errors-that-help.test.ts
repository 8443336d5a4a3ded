/**
 * Errors that help (issue 16 items 4 and 5): a mistyped command gets "did you mean" in crater's own
 * `Error [ERR_USAGE]` format (and a JSON error under --json), `-h` is `--help`, a missing argument is one plain
 * line, a path that does not exist is a usage error (exit 2), `state dump` decodes a copied partition dir by its
 * content, `topic create --if-not-exists` is re-runnable, and a refused connection says how to start a broker.
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crater, repoRoot, useCliBroker } from '../helpers/cli.js';

const server = useCliBroker();
let tmp: string;

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'crater-errors-'));
});

afterAll(async () => {
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

describe('usage errors', () => {
  it('a mistyped command: "did you mean", crater format, exit 2, JSON error under --json', async () => {
    const r = await crater(['topic', 'creat', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('Error [ERR_USAGE]: unknown command "topic creat"; did you mean "topic create"?');
    const j = await crater(['grup', 'list', '--json']);
    expect(j.code).toBe(2);
    expect(JSON.parse(j.stdout)).toEqual({
      error: { code: 'ERR_USAGE', message: 'unknown command "grup list"; did you mean "group list"?' },
    });
  });

  it('-h is --help', async () => {
    const short = await crater(['topic', 'create', '-h']);
    const long = await crater(['topic', 'create', '--help']);
    expect(short.code).toBe(0);
    expect(short.stdout).toBe(long.stdout);
    expect(short.stdout).toMatch(/--if-not-exists/);
  });

  it("a missing argument is one line without oclif's note about multi-value flags", async () => {
    const r = await crater(['produce']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('Error [ERR_USAGE]: missing argument TOPIC (Topic to produce to) (see --help)');
  });

  it('segments inspect and state dump on a path that does not exist: exit 2, nothing on stdout but the JSON error', async () => {
    const missing = path.join(tmp, 'no-such-dir');
    for (const args of [
      ['segments', 'inspect', missing],
      ['state', 'dump', missing],
    ]) {
      const r = await crater([...args, '--json']);
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stdout).error).toEqual({ code: 'ERR_USAGE', message: `path "${missing}" does not exist` });
    }
  });

  it('state dump decodes a copied partition dir by its content, whatever its parent is called', async () => {
    const copy = path.join(tmp, 'copied', 'partition-12');
    await fs.cp(path.join(repoRoot, 'fixtures', 'producer-state', '__producer_state', 'partition-12'), copy, {
      recursive: true,
    });
    const r = await crater(['state', 'dump', copy, '--history', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.findings).toEqual([]);
    expect(report.entries.length).toBeGreaterThan(0);
  });
});

describe('errors from the broker side', () => {
  it('topic create --if-not-exists succeeds on an existing topic and leaves it as it is', async () => {
    const env = { broker: server.address };
    expect(JSON.parse((await crater(['topic', 'create', 'again', '-p', '2', '--json'], '', env)).stdout)).toEqual({
      topic: 'again',
      partitions: 2,
      created: true,
    });
    const plain = await crater(['topic', 'create', 'again', '--json'], '', env);
    expect(plain.code).toBe(1);
    const rerun = await crater(['topic', 'create', 'again', '-p', '5', '--if-not-exists', '--json'], '', env);
    expect(rerun.code).toBe(0);
    expect(JSON.parse(rerun.stdout)).toEqual({ topic: 'again', partitions: 2, created: false });
  });

  it('a refused connection names the address and says how to start a broker or point elsewhere', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const r = await crater(['topic', 'list', '--json'], '', { broker: `127.0.0.1:${port}` });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(
      `is a broker running at 127.0.0.1:${port}? start one with \`crater broker start\`, or set CRATER_BROKER / --broker`,
    );
    expect(JSON.parse(r.stdout).error.code).toBe('ERR_CONNECTION');
  });
});
