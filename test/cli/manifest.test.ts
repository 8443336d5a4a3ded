/**
 * oclif.manifest.json is what `crater` reads at start-up instead of loading every command; a stale one hides new
 * commands or shows old flags. This compares it with a manifest generated afresh from dist/commands the way
 * `oclif manifest` does (`npm test` builds first, so dist/ is current). `.ci/run` separately checks that the
 * committed file is the one the build regenerates.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Plugin } from '@oclif/core';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

interface ManifestCommand {
  id: string;
  flags: Record<string, { type: string; char?: string; env?: string; multiple?: boolean; options?: string[] }>;
  args: Record<string, { required?: boolean }>;
  summary?: string;
  description?: string;
  enableJsonFlag?: boolean;
  aliases?: string[];
}

interface Manifest {
  version: string;
  commands: Record<string, ManifestCommand>;
}

/** The parts of a command a user or script depends on. */
function shape(manifest: Manifest) {
  return Object.fromEntries(
    Object.entries(manifest.commands)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([id, c]) => [
        id,
        {
          flags: Object.fromEntries(
            Object.entries(c.flags)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([name, f]) => [
                name,
                { type: f.type, char: f.char, env: f.env, multiple: f.multiple, options: f.options },
              ]),
          ),
          args: Object.fromEntries(Object.entries(c.args).map(([name, a]) => [name, { required: a.required }])),
          summary: c.summary,
          description: c.description,
          enableJsonFlag: c.enableJsonFlag,
          aliases: c.aliases,
        },
      ]),
  );
}

async function freshManifest(): Promise<Manifest> {
  const plugin = new Plugin({ root, isRoot: true, ignoreManifest: true, errorOnManifestCreate: true });
  await plugin.load();
  return JSON.parse(JSON.stringify(plugin.manifest)) as Manifest;
}

describe('oclif.manifest.json', () => {
  it('matches the commands compiled into dist/commands', async () => {
    const onDisk = JSON.parse(await readFile(join(root, 'oclif.manifest.json'), 'utf8')) as Manifest;
    const fresh = await freshManifest();
    expect(Object.keys(onDisk.commands).sort()).toEqual(Object.keys(fresh.commands).sort());
    expect(shape(onDisk)).toEqual(shape(fresh));
  });

  it('carries the package version', async () => {
    const onDisk = JSON.parse(await readFile(join(root, 'oclif.manifest.json'), 'utf8')) as Manifest;
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string };
    expect(onDisk.version).toBe(pkg.version);
  });
});
