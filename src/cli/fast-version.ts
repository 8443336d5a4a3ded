/**
 * `crater --version` without loading oclif: oclif answers it only after loading its config, every plugin's manifest
 * and most of its own modules, which is nearly all of a start-up. The text is oclif's user agent,
 * `<name>/<version> <platform>-<arch> node-<version>`, built the same way (oclif prints it whenever the first
 * argument is --version). Where oclif would name the platform "wsl" the answer is left to oclif.
 */
import { readFileSync } from 'node:fs';
import { arch, platform, release } from 'node:os';

/** The version line oclif would print, or undefined when only oclif can tell (WSL). */
export function versionLine(packageJsonUrl: URL): string | undefined {
  if (platform() === 'linux' && /microsoft/i.test(release())) return undefined;
  const pkg = JSON.parse(readFileSync(packageJsonUrl, 'utf8')) as { name: string; version: string };
  const cpu = arch() === 'ia32' ? 'x86' : arch();
  return `${pkg.name}/${pkg.version} ${platform()}-${cpu} node-${process.version}`;
}

/** Prints the version and returns true when argv asks for it and no oclif is needed; false otherwise. */
export function answerVersion(argv: readonly string[], packageJsonUrl: URL): boolean {
  if (argv[0] !== '--version') return false;
  const line = versionLine(packageJsonUrl);
  if (line === undefined) return false;
  process.stdout.write(`${line}\n`);
  return true;
}
