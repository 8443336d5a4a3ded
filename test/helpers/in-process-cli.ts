/**
 * Runs a crater command class from src/ in this process (oclif's `Command.run` over the package's config) and
 * collects what it wrote to stdout and stderr and the exit code it ended with. The CLI tests run the built binary in
 * child processes, which is the contract; this is for tests of the command base (cli/base-command.ts) and the cli/
 * modules behind it, whose coverage a child process does not report. Like the child's environment (cli.ts), the
 * user's client config and every CRATER_* variable are kept away from the command while it runs.
 */
import os from 'node:os';
import path from 'node:path';
import { Config, Errors } from '@oclif/core';
import type { CliResult } from './cli.js';
import { repoRoot } from './cli.js';

let config: Promise<Config> | undefined;

function capture(stream: NodeJS.WriteStream, sink: { text: string }): () => void {
  const original = stream.write;
  const write = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    sink.text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    if (done) queueMicrotask(done);
    return true;
  };
  stream.write = write;
  return () => {
    stream.write = original;
  };
}

function isolateEnv(): () => void {
  const saved = { ...process.env };
  for (const key of Object.keys(process.env))
    if (key.startsWith('CRATER_') || ['NO_COLOR', 'FORCE_COLOR', 'DEBUG'].includes(key)) delete process.env[key];
  process.env.XDG_CONFIG_HOME = path.join(os.tmpdir(), 'crater-test-no-client-config');
  return () => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  };
}

/** process.exitCode as the command left it (a function, so TypeScript does not narrow it to our own assignment). */
const exitCodeNow = (): typeof process.exitCode => process.exitCode;

/** The package's oclif config (commands, topics, hooks), loaded once per test file. */
export function loadConfig(): Promise<Config> {
  config ??= Config.load(repoRoot);
  return config;
}

/**
 * Runs `body` with stdout and stderr captured, `env` set (and CRATER_* cleared) while it runs, and process.exitCode
 * restored afterwards; the exit code is oclif's ExitError code, else process.exitCode, else 0. Anything other than an
 * ExitError propagates.
 */
export async function inProcess(body: () => Promise<unknown>, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const stdout = { text: '' };
  const stderr = { text: '' };
  const restoreEnv = isolateEnv();
  Object.assign(process.env, env);
  const exitCodeBefore = process.exitCode;
  process.exitCode = undefined;
  const restoreOut = capture(process.stdout, stdout);
  const restoreErr = capture(process.stderr, stderr);
  let code: number;
  try {
    await body();
    code = Number(exitCodeNow() ?? 0);
  } catch (error) {
    if (!(error instanceof Errors.ExitError)) throw error;
    code = error.oclif.exit ?? 1;
  } finally {
    restoreOut();
    restoreErr();
    restoreEnv();
    process.exitCode = exitCodeBefore;
  }
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** `Cmd` run with `argv` (and `env` set while it runs); never throws for the command's own failure. */
export async function runInProcess(
  Cmd: { run(argv: string[], config: Config): Promise<unknown> },
  argv: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<CliResult> {
  const loaded = await loadConfig();
  return inProcess(() => Cmd.run(argv, loaded), env);
}
