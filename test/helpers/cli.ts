/**
 * Runs the built CLI (bin/run.js over dist/; `npm test` builds first) as a child process and collects its output.
 * The child's environment is the test's minus anything that would change what it prints or where it connects
 * (colour, DEBUG, every CRATER_* variable, the user's client config), plus CRATER_BROKER when a broker address is given.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import type { Broker } from '../../src/broker/broker.js';
import { connect } from '../../src/client/client.js';
import { until } from './eventually.js';
import { type TempBroker, startTempBroker } from './temp-broker.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** host:port handed to the child as CRATER_BROKER. */
  broker?: string | undefined;
  /** Extra variables, applied last. */
  env?: NodeJS.ProcessEnv | undefined;
}

export interface CliRun {
  child: ChildProcessWithoutNullStreams;
  done: Promise<CliResult>;
}

/** The environment every CLI child gets (see the module comment). */
export function childEnv(options: CliOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true' };
  for (const key of Object.keys(env))
    if (key.startsWith('CRATER_') || ['NO_COLOR', 'FORCE_COLOR', 'DEBUG'].includes(key)) delete env[key];
  // A developer's own ~/.config/crater/config.json must not reach the CLI under test.
  env.XDG_CONFIG_HOME = path.join(os.tmpdir(), 'crater-test-no-client-config');
  if (options.broker !== undefined) env.CRATER_BROKER = options.broker;
  return { ...env, ...options.env };
}

/** Starts `crater ARGS` with stdin open, for tests that write to it or signal the child while it runs. */
export function spawnCrater(args: string[], options: CliOptions = {}): CliRun {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/run.js'), ...args], {
    env: childEnv(options),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, done };
}

/**
 * The host:port of the `crater broker start` child `run`, from the CRATER_BROKER= line it prints once listening
 * (polled up to `timeoutMs`); throws with the child's stderr if it exits first.
 */
export async function brokerAddressOf(run: CliRun, timeoutMs = 20_000): Promise<string> {
  let out = '';
  run.child.stdout.on('data', (d: string) => (out += d));
  const address = await until(
    () => /CRATER_BROKER=(\S+)/.exec(out)?.[1] ?? (run.child.exitCode !== null ? null : undefined),
    { timeoutMs, intervalMs: 25, what: 'a CRATER_BROKER= line on stdout' },
  );
  if (address === null) throw new Error(`broker did not start: ${(await run.done).stderr}`);
  return address;
}

/** Runs `crater ARGS` to its end with `input` (default: nothing) on stdin. */
export function crater(args: string[], input: string | Buffer = '', options: CliOptions = {}): Promise<CliResult> {
  const run = spawnCrater(args, options);
  run.child.stdin.end(input);
  return run.done;
}

/** Each non-empty line of `text` parsed as JSON. */
export function jsonLines(text: string): any[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

/** Creates `name` on the broker at `address` through a short-lived client. */
export async function createTopic(address: string, name: string, partitions = 1): Promise<void> {
  const client = await connect({ broker: address });
  try {
    await client.createTopic(name, partitions);
  } finally {
    await client.close();
  }
}

export interface CliBroker extends TempBroker {
  /** host:port to hand to `crater` as `{ broker: address }`. */
  address: string;
}

/** An in-process broker on port 0 over a temp data dir for the CLI under test; `cleanup` stops it and removes the dir. */
export async function startCliBroker(): Promise<CliBroker> {
  const temp = await startTempBroker({ port: 0 });
  return { ...temp, address: `127.0.0.1:${temp.port}` };
}

/** What a CLI test file uses of its broker once `useCliBroker` started it. */
export interface CliBrokerScope {
  readonly broker: Broker;
  readonly dataDir: string;
  readonly port: number;
  readonly address: string;
  /** `crater ARGS` against this broker, with `input` on stdin and `env` added to the child's environment. */
  crater(args: string[], input?: string | Buffer, env?: NodeJS.ProcessEnv): Promise<CliResult>;
  createTopic(name: string, partitions?: number): Promise<void>;
}

/**
 * One broker for a CLI test file: started in a beforeAll registered here (so it runs before the file's own), and
 * cleaned up in an afterAll that runs after the file's own, also when the start failed part-way. Its fields throw
 * when read before the start.
 */
export function useCliBroker(): CliBrokerScope {
  let server: CliBroker | undefined;
  beforeAll(async () => {
    server = await startCliBroker();
  }, 60_000);
  afterAll(async () => {
    await server?.cleanup();
  });
  const started = (): CliBroker => {
    if (!server) throw new Error('the CLI broker is started in beforeAll');
    return server;
  };
  return {
    get broker() {
      return started().broker;
    },
    get dataDir() {
      return started().dataDir;
    },
    get port() {
      return started().port;
    },
    get address() {
      return started().address;
    },
    crater: (args, input, env = {}) => crater(args, input, { broker: started().address, env }),
    createTopic: (name, partitions = 1) => createTopic(started().address, name, partitions),
  };
}
