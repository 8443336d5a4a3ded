#!/usr/bin/env node
// `crater --version` is answered before oclif loads (most of a start-up); everything else goes to oclif.
import { answerVersion } from '../dist/cli/fast-version.js';

if (!answerVersion(process.argv.slice(2), new URL('../package.json', import.meta.url))) {
  const { execute } = await import('@oclif/core');
  await execute({ dir: import.meta.url });
}
