/** The bench broker's fsync timer over the real file layer: real files, real fsyncs. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FsyncTimer } from '../../../src/bench/fsync-timer.js';
import { storageFs } from '../../../src/storage/file-io.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function fsyncOnce(fd: number): Promise<void> {
  return new Promise((resolve, reject) => storageFs.fsync(fd, (err) => (err ? reject(err) : resolve())));
}

describe('FsyncTimer', () => {
  it('counts and times each asynchronous fsync through the storage layer; reset opens a new window', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fsync-timer-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const timer = new FsyncTimer();
    cleanups.push(timer.install());
    const fd = storageFs.openSync(path.join(dir, 'f'), 'w');
    cleanups.push(() => storageFs.closeSync(fd));
    expect(timer.window()).toMatchObject({ count: 0, totalMs: 0, ms: { count: 0, p99: 0 } });

    for (let i = 0; i < 3; i++) {
      storageFs.writeSync(fd, Buffer.from('x'), 0, 1, i);
      await fsyncOnce(fd);
    }
    storageFs.fsyncSync(fd); // synchronous fsyncs (rolls, close) are not the group committers': not counted
    const w = timer.window();
    expect(w.count).toBe(3);
    expect(w.ms.count).toBe(3);
    expect(w.totalMs).toBeGreaterThan(0);
    expect(w.ms.max).toBeLessThanOrEqual(w.totalMs);

    timer.reset();
    expect(timer.window().count).toBe(0);
    await fsyncOnce(fd);
    expect(timer.window().count).toBe(1);
  });

  it('passes a failed fsync through to its caller, still timed', async () => {
    const timer = new FsyncTimer();
    cleanups.push(timer.install());
    await expect(fsyncOnce(2_000_000)).rejects.toMatchObject({ code: 'EBADF' });
    expect(timer.window().count).toBe(1);
  });
});
