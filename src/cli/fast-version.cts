/**
 * `crater --version` without loading oclif: oclif answers it only after loading its config, every plugin's manifest
 * and most of its own modules, which is nearly all of a start-up. The text is oclif's user agent,
 * `<name>/<version> <platform>-<arch> node-<version>`, built the same way (oclif prints it whenever the first
 * argument is --version). Where oclif would name the platform "wsl" the answer is left to oclif.
 *
 * CommonJS (.cts → dist/cli/fast-version.cjs) because bin/run.js is: an ES module entry point costs Node ~15 ms of
 * CPU before its first line runs (the ESM loader), 10% of a whole `--version`.
 */
import { readFileSync, writeSync } from 'node:fs';
import { arch, platform, release } from 'node:os';

/** The version line oclif would print, or undefined when only oclif can tell (WSL). */
export function versionLine(packageJsonPath: string | URL): string | undefined {
  if (platform() === 'linux' && /microsoft/i.test(release())) return undefined;
  const pkg = JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { name: string; version: string };
  const cpu = arch() === 'ia32' ? 'x86' : arch();
  return `${pkg.name}/${pkg.version} ${platform()}-${cpu} node-${process.version}`;
}

/**
 * Writes to fd 1 directly: `process.stdout` is built on first use, and for a pipe that loads node:net and the stream
 * modules (~10 ms, more than the rest of this path). A non-blocking stdout that is full (EAGAIN) takes the stream.
 * A reader that went away (EPIPE) ends it quietly with 0, as every command does; any other failure (a full disk) is
 * one line on stderr and exit code 1 (I/O error), not a stack trace.
 */
function writeLine(text: string): void {
  const bytes = Buffer.from(text);
  let done = 0;
  try {
    while (done < bytes.length) done += writeSync(1, bytes, done);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EAGAIN') process.stdout.write(bytes.subarray(done));
    else if (code !== 'EPIPE') {
      process.stderr.write(`crater: cannot write to stdout (${code ?? String(error)})\n`);
      process.exitCode = 1;
    }
  }
}

/** Prints the version and returns true when argv asks for it and no oclif is needed; false otherwise. */
export function answerVersion(argv: readonly string[], packageJsonPath: string | URL): boolean {
  if (argv[0] !== '--version') return false;
  const line = versionLine(packageJsonPath);
  if (line === undefined) return false;
  writeLine(`${line}\n`);
  return true;
}
