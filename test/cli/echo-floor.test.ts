/**
 * scripts/echo-floor.js: the machine's round-trip ceiling for many connections (README, bench throughput). It runs
 * against the built echo child, so `npm test`'s build must have happened. No timing assertions.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const script = path.resolve(__dirname, '../../scripts/echo-floor.js');
const run = (args: string[]) => spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });

describe('scripts/echo-floor.js', () => {
  it('--json reports the round trips of every connection and the client CPU per round trip', () => {
    const r = run(['--connections', '8', '--seconds', '0.2', '--bytes', '100', '--json']);
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout) as Record<string, number>;
    expect(report).toMatchObject({ connections: 8, bytes: 100 });
    // Each connection finishes the round trip it has out when the time is up: at least one each.
    expect(report.roundTrips).toBeGreaterThanOrEqual(8);
    expect(report.roundTripsPerSec).toBeCloseTo((report.roundTrips! * 1000) / report.wallMs!, 6);
    expect(report.clientCpuUsPerRoundTrip).toBeGreaterThan(0);
  }, 30_000);

  it('refuses a bad count with exit 2 and nothing on stdout', () => {
    const r = run(['--connections', '0']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/positive integers/);
  });
});
