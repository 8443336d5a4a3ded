#!/usr/bin/env node
// `crater --version` is answered before oclif loads (most of a start-up); everything else goes to oclif.
// CommonJS (bin/package.json): an ES module entry point would cost ~15 ms before the first line; oclif and the
// commands are still ES modules, imported below. `dir` names the package root: oclif would otherwise take
// bin/package.json for it.
'use strict';
const { join } = require('node:path');
const { answerVersion } = require('../dist/cli/fast-version.cjs');

const root = join(__dirname, '..');
if (!answerVersion(process.argv.slice(2), join(root, 'package.json'))) {
  void import('@oclif/core').then(({ execute }) => execute({ dir: root }));
}
