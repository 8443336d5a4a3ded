// oclif writes oclif.manifest.json with commands in the order its loader happened to finish, which differs from run
// to run. Sorting the command ids makes the file a pure function of the commands, so CI can compare it with the
// committed copy byte for byte.
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../oclif.manifest.json', import.meta.url);
const manifest = JSON.parse(readFileSync(path, 'utf8'));
const sorted = Object.fromEntries(
  Object.keys(manifest.commands)
    .sort()
    .map((id) => [id, manifest.commands[id]]),
);
writeFileSync(path, `${JSON.stringify({ ...manifest, commands: sorted }, null, 2)}\n`);
