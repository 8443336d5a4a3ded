/**
 * `crater broker start` connection limits (issue 11 item 4): the flags, their CRATER_* variables and the config
 * file's Server keys reach the broker; the connection past the per-IP limit is refused with ERR 6.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { Op } from '../../src/protocol/opcodes.js';
import { type CliRun, brokerAddressOf, spawnCrater } from '../helpers/cli.js';
import { RawClient } from '../helpers/raw-client.js';
import { tempDataDir } from '../helpers/temp-broker.js';

const runs: CliRun[] = [];
const dirs: string[] = [];
const clients: RawClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const r of runs.splice(0)) {
    if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    await r.done;
  }
  await Promise.all(dirs.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
});

describe('crater broker start connection limits', () => {
  it('CRATER_MAX_CONNECTIONS_PER_IP and the config file set the limits; the extra connection gets ERR 6', async () => {
    const dataDir = await tempDataDir();
    dirs.push(dataDir);
    const config = path.join(dataDir, '..', `${path.basename(dataDir)}.json`);
    await fs.writeFile(config, JSON.stringify({ Server: { MaxConnections: 5, MaxPendingSendBytesTotal: 1_048_576 } }));
    dirs.push(config);
    const run = spawnCrater(['broker', 'start', '--data-dir', dataDir, '--port', '0', '--config', config], {
      env: { CRATER_MAX_CONNECTIONS_PER_IP: '1' },
    });
    runs.push(run);
    const address = await brokerAddressOf(run);
    const port = Number(address.slice(address.lastIndexOf(':') + 1));
    const first = await RawClient.authenticated(port);
    clients.push(first);
    const second = await RawClient.connect(port);
    clients.push(second);
    const refusal = await second.waitFor((f) => f.op === Op.ERROR);
    expect(second.error(refusal)).toEqual({
      code: ErrorCode.RATE_LIMITED,
      message: 'too many connections from this address: 1 allowed',
    });
    await second.waitClosed();
    run.child.kill('SIGTERM');
    const result = await run.done;
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/refused a connection/);
  }, 60_000);
});
