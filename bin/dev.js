#!/usr/bin/env node
// Runs the compiled tree like bin/run.js but with oclif's development flags (stack traces, no manifest cache).
import { execute } from '@oclif/core';

await execute({ development: true, dir: import.meta.url });
