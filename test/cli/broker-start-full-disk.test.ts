/**
 * `crater broker start` on a full disk (issue 11 item 6), on a real tiny tmpfs (skipped with the reason where it
 * cannot be mounted): SIGTERM finishes the stop and reports the failed final sync as one line with exit 0, where it
 * used to exit 1 with the bare ENOSPC; a start that cannot open a commit log names the ENOSPC cause.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/client.js';
import { CommitLog } from '../../src/storage/commit-log.js';
import { type CliRun, brokerAddressOf, crater, spawnCrater } from '../helpers/cli.js';
import { type TinyDisk, mountTinyDisk } from '../helpers/tiny-disk.js';

let disk: TinyDisk | undefined;
const runs: CliRun[] = [];

afterEach(async () => {
  for (const r of runs.splice(0)) {
    if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    await r.done;
  }
  await disk?.unmount();
  disk = undefined;
});

describe('crater broker start on a full disk', () => {
  it('SIGTERM: one line about the failed final sync, exit 0; a restart that cannot open a commit log names ENOSPC', async (ctx) => {
    const mounted = await mountTinyDisk();
    if ('skip' in mounted) return ctx.skip(mounted.skip);
    disk = mounted;
    const dataDir = path.join(disk.dir, 'data');
    const run = spawnCrater(['broker', 'start', '--data-dir', dataDir, '--port', '0', '--topic', 't:1']);
    runs.push(run);
    const broker = await brokerAddressOf(run);
    const client = await connect({ broker });
    try {
      for (let i = 0; i < 1000; i++) await client.produce('t', { key: `k${i}`, value: Buffer.alloc(60_000, 1) });
    } catch {
      // ERR 7 ENOSPC: the disk is full.
    } finally {
      await client.close();
    }
    const firstFiller = disk.fill();
    run.child.kill('SIGTERM');
    const stopped = await run.done;
    expect(stopped.code).toBe(0);
    const lines = stopped.stderr.split('\n').filter((l) => /final sync failed/.test(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/error broker stopped, but its final sync failed error=.*ENOSPC/);
    expect(stopped.stderr).not.toMatch(/^\s+at /m);
    expect(stopped.stderr).not.toMatch(/Error \[/);

    // Not a byte free (the released lock gave its page back): even the lock file cannot be written, and the error
    // says which file and why.
    const secondFiller = disk.fill();
    const full = await crater(['broker', 'start', '--data-dir', dataDir, '--port', '0', '--exit-on-stdin-close']);
    expect(full.code).toBe(1);
    expect(full.stderr).toMatch(/cannot write the lock file \S+\.lock: ENOSPC: no space left on device/);
    expect(fs.existsSync(path.join(dataDir, '.lock'))).toBe(false);

    // A commit log with a record whose index recovery must rewrite; then one free page, which the lock takes.
    fs.rmSync(firstFiller);
    fs.rmSync(secondFiller);
    const partition = path.join(dataDir, '__consumer_offsets', 'partition-1');
    const log = CommitLog.open(partition);
    log.append([{ attrs: 0, timestamp: 1n, key: Buffer.from('k'), value: Buffer.from('v') }]);
    await log.close();
    for (const name of fs.readdirSync(partition)) if (name.endsWith('.index')) fs.rmSync(path.join(partition, name));
    const filler = disk.fill();
    fs.truncateSync(filler, fs.statSync(filler).size - 4096);
    const restart = await crater(['broker', 'start', '--data-dir', dataDir, '--port', '0', '--exit-on-stdin-close']);
    expect(restart.code).toBe(1);
    expect(restart.stderr).toMatch(/cannot open commit log \S+partition-1: ENOSPC: no space left on device/);
  }, 60_000);
});
