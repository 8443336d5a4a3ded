/**
 * Issue 11 item 4: running out of file descriptors must not stop the broker, nor new well-behaved clients for
 * longer than the watchdogs take to close the connections that hold the descriptors. A broker from the build runs in
 * a child whose descriptor limit (`ulimit -n`) leaves room for a few dozen sockets; silent connections use them up.
 * libuv keeps one spare descriptor to drain the backlog when accept fails with EMFILE; should that fail too, Node
 * emits 'error' on the listening socket, which had no listener (a crash): the broker now logs it and keeps going.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../helpers/raw-client.js';
import { tempDataDir } from '../helpers/temp-broker.js';
import { repoRoot } from '../helpers/cli.js';
import { until as pollUntil } from '../helpers/eventually.js';

const FD_LIMIT = 110;
const HANDSHAKE_MS = 1_000;

const script = `
const { Broker } = await import(${JSON.stringify(path.join(repoRoot, 'dist/broker/index.js'))});
const { stderrLogger } = await import(${JSON.stringify(path.join(repoRoot, 'dist/cli/broker-run.js'))});
const broker = await Broker.start({
  dataDir: process.argv[1], handshakeTimeoutMs: ${HANDSHAKE_MS}, preAuthReadTimeoutMs: ${HANDSHAKE_MS}, logger: stderrLogger(),
  // Descriptors, not the connection limits, must be what runs out.
  maxConnections: 10000, maxConnectionsPerIp: 10000,
});
process.stdout.write('PORT=' + broker.address.port + '\\n');
process.stdin.on('end', () => broker.stop()).resume();
`;

let child: ChildProcess | undefined;
let dataDir = '';
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.stdin!.end();
    await exited;
  }
  child = undefined;
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
});

function until<T>(what: string, attempt: () => T | undefined | Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  return pollUntil(attempt, { what: `waiting until ${what}`, timeoutMs, intervalMs: 20 });
}

describe.skipIf(process.platform === 'win32')('file descriptor exhaustion', () => {
  it(
    'the broker keeps listening and serves a new client once the handshake watchdog frees descriptors',
    { timeout: 90_000 },
    async () => {
      dataDir = await tempDataDir();
      child = spawn(
        'sh',
        [
          '-c',
          `ulimit -n ${FD_LIMIT} && exec "$0" --input-type=module -e "$1" "$2"`,
          process.execPath,
          script,
          dataDir,
        ],
        {
          stdio: ['pipe', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const port = Number(await until('the broker listens', () => /PORT=(\d+)/.exec(stdout)?.[1], 30_000));

      // Silent connections until the broker has no descriptor left: libuv then accepts and drops the pending ones at once
      // (no bytes, no ERROR), which is how a test sees that accept ran out; the watchdog's closes send ERROR 8 first.
      const dropped: net.Socket[] = [];
      for (let i = 0; i < FD_LIMIT; i++) {
        const s = net.connect(port, '127.0.0.1');
        let got = 0;
        s.on('data', (d: Buffer) => (got += d.length));
        s.on('close', () => got === 0 && dropped.push(s));
        s.on('error', () => undefined);
        sockets.push(s);
      }
      // Either way accept ran out: libuv dropped pending connections, or (its spare descriptor gone too) the listening
      // socket reported the error, which the broker logs, leaving the rest in the backlog.
      await until(
        'accept runs out of descriptors',
        () => (dropped.length > 0 || stderr.includes('cannot accept a connection') ? true : undefined),
        30_000,
      );
      expect(child.exitCode).toBeNull();

      // The handshake watchdog closes the silent ones; a client that speaks the protocol gets in, the broker never died.
      const client = await until(
        'a new client authenticates',
        () => RawClient.authenticated(port).catch(() => undefined),
        20_000,
      );
      await client.close();
      expect(child.exitCode).toBeNull();
      expect(stderr).not.toMatch(/Error: accept/);
    },
  );
});
