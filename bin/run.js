#!/usr/bin/env node
// `crater --version` is answered before oclif loads (most of a start-up); everything else goes to oclif.
// CommonJS (bin/package.json): an ES module entry point would cost ~15 ms before the first line; oclif and the
// commands are still ES modules, imported below. `dir` names the package root: oclif would otherwise take
// bin/package.json for it.
'use strict';
const { join } = require('node:path');
const { answerVersion } = require('../dist/cli/fast-version.cjs');

/**
 * Loads oclif without its engine check: on load it compiles semver (47 modules, 5-10% of a start-up) to check
 * Node against its own `engines` (>=18), which crater's (>=20) is stricter than. The variable is set only while
 * oclif's index evaluates (the commands import the same instance), so child processes (consume --exec) never see it.
 */
async function loadOclif() {
  const saved = process.env.OCLIF_DISABLE_ENGINE_WARNING;
  process.env.OCLIF_DISABLE_ENGINE_WARNING = '1';
  try {
    return await import('@oclif/core');
  } finally {
    if (saved === undefined) delete process.env.OCLIF_DISABLE_ENGINE_WARNING;
    else process.env.OCLIF_DISABLE_ENGINE_WARNING = saved;
  }
}

const root = join(__dirname, '..');
if (!answerVersion(process.argv.slice(2), join(root, 'package.json'))) {
  void loadOclif().then(({ execute }) => execute({ dir: root }));
}
