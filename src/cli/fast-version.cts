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
 */
function writeLine(text: string): void {
  try {
    writeSync(1, text);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
    process.stdout.write(text);
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
