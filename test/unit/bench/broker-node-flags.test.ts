import { describe, expect, it } from 'vitest';
import { envExecArgv } from '../../../src/bench/embedded-broker.js';

describe('CRATER_BENCH_BROKER_NODE_FLAGS', () => {
  it('gives the bench broker child its node flags, split on spaces', () => {
    const env = { CRATER_BENCH_BROKER_NODE_FLAGS: ' --cpu-prof  --cpu-prof-dir=prof ' };
    expect(envExecArgv(env)).toEqual(['--cpu-prof', '--cpu-prof-dir=prof']);
  });

  it('gives none when unset or empty', () => {
    expect(envExecArgv({})).toEqual([]);
    expect(envExecArgv({ CRATER_BENCH_BROKER_NODE_FLAGS: '' })).toEqual([]);
  });
});
