/**
 * `crater bench` honours CRATER_BROKER like every network command (issue 16 item 4): with it set, the bench runs
 * against that broker (the report names it, and no fsyncs are reported, which only the embedded broker can count).
 */
import { describe, expect, it } from 'vitest';
import { crater, useCliBroker } from '../helpers/cli.js';

const server = useCliBroker();

describe('bench and CRATER_BROKER', () => {
  it('batch-vs-single runs against the broker CRATER_BROKER names', async () => {
    const r = await crater(
      ['bench', 'batch-vs-single', '--records', '20', '--repeat', '1', '--warmup-singles', '20', '--json'],
      '',
      {
        broker: server.address,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as Record<string, any>;
    expect(report.broker).toMatchObject({ embedded: false, address: server.address });
    expect(report.single.fsyncs).toBeNull();
  }, 60_000);
});
