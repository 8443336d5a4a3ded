/**
 * `crater broker start` (from the build) in a child process on a given data dir, for tests that kill a broker and
 * restart it on the same files; with `crashAt`, the test-only entry fault-broker.mjs instead, which starts the same
 * built broker with a fault hook that SIGKILLs it at that crash point. The start resolves on the CRATER_BROKER= line
 * either prints once it listens.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './cli.js';

export interface ChildBroker {
  child: ChildProcess;
  address: string;
  /** Settles when the child has exited, with the signal that ended it (null for a normal exit). */
  exited: Promise<NodeJS.Signals | null>;
}

export interface ChildBrokerOptions {
  /** `--topic` values, e.g. 'orders:3'. */
  topics?: readonly string[];
  /** A crash point of src/broker/fault-hooks.ts: the child SIGKILLs itself there. */
  crashAt?: string | undefined;
  /** Times the crash point is passed before the hit that kills (default 0). */
  crashSkip?: number | undefined;
  /** How long to wait for the broker to listen (default 15 s). */
  startTimeoutMs?: number;
}

export function startChildBroker(dataDir: string, options: ChildBrokerOptions = {}): Promise<ChildBroker> {
  const env: NodeJS.ProcessEnv = { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true' };
  const args =
    options.crashAt === undefined
      ? [path.join(repoRoot, 'bin/run.js'), 'broker', 'start', '--data-dir', dataDir, '--port', '0']
      : [path.join(repoRoot, 'test/helpers/fault-broker.mjs'), '--data-dir', dataDir, '--crash-at', options.crashAt];
  if (options.crashAt !== undefined && options.crashSkip !== undefined)
    args.push('--crash-skip', String(options.crashSkip));
  for (const topic of options.topics ?? []) args.push('--topic', topic);
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once('exit', (_code, signal) => resolve(signal)),
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timeoutMs = options.startTimeoutMs ?? 15_000;
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`broker did not start within ${timeoutMs} ms: ${stderr}`)),
      timeoutMs,
    );
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /CRATER_BROKER=(\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, address: m[1]!, exited });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`broker exited with ${code} before listening: ${stderr}`));
    });
  });
}

/** SIGKILLs the child and waits until it has exited. */
export async function killChildBroker(broker: ChildBroker): Promise<void> {
  broker.child.kill('SIGKILL');
  await broker.exited;
}
