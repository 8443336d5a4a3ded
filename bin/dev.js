#!/usr/bin/env node
// Runs the compiled tree like bin/run.js but with oclif's development flags (stack traces, no manifest cache).
// CommonJS like bin/run.js (bin/package.json).
'use strict';
const { join } = require('node:path');

void import('@oclif/core').then(({ execute }) => execute({ development: true, dir: join(__dirname, '..') }));
