/**
 * Issue 11 item 6 on a real full disk (a tiny tmpfs; skipped with the reason where it cannot be mounted): a commit
 * log that cannot open says why (ENOSPC) and keeps no descriptor; a broker stopped on a full disk still closes every
 * log and releases the lock, and reports the failed final sync as one error.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Broker } from '../../src/broker/broker.js';
import type { Logger } from '../../src/broker/core.js';
import { LOCK_FILE } from '../../src/broker/data-dir-lock.js';
import { ShutdownIncompleteError, StorageError } from '../../src/errors.js';
import { ProduceRequest } from '../../src/protocol/messages/produce.js';
import { Op } from '../../src/protocol/opcodes.js';
import { CommitLog } from '../../src/storage/commit-log.js';
import { RawClient } from '../helpers/raw-client.js';
import { type TinyDisk, mountTinyDisk } from '../helpers/tiny-disk.js';

let disk: TinyDisk | undefined;
afterEach(async () => {
  await disk?.unmount();
  disk = undefined;
});

async function tinyDisk(skip: (reason: string) => void): Promise<TinyDisk> {
  const mounted = await mountTinyDisk();
  if ('skip' in mounted) {
    skip(mounted.skip);
    throw new Error('unreachable');
  }
  disk = mounted;
  return mounted;
}

/** This process's descriptors that point into `dir` (Linux /proc). */
function openFilesUnder(dir: string): string[] {
  const open: string[] = [];
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(dir + path.sep)) open.push(target);
    } catch {
      // Closed between the listing and the readlink (readdir's own descriptor among them).
    }
  }
  return open;
}

describe('a full disk', () => {
  it('a commit log that must rewrite its index fails with the ENOSPC cause in its message and keeps no file open', async (ctx) => {
    const d = await tinyDisk((reason) => ctx.skip(reason));
    const dir = path.join(d.dir, 'log');
    const log = CommitLog.open(dir);
    log.append([{ attrs: 0, timestamp: 1n, key: Buffer.from('k'), value: Buffer.from('v') }]);
    await log.close();
    const index = fs.readdirSync(dir).find((n) => n.endsWith('.index'))!;
    fs.rmSync(path.join(dir, index));
    d.fill();
    let error: unknown;
    try {
      CommitLog.open(dir);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(StorageError);
    expect((error as Error).message).toMatch(/^cannot open commit log .*: ENOSPC: no space left on device/);
    expect(((error as Error).cause as NodeJS.ErrnoException).code).toBe('ENOSPC');
    expect(openFilesUnder(d.dir)).toEqual([]);
  });

  it('Broker.stop closes every log and releases the lock, then reports the failed final sync once', async (ctx) => {
    const d = await tinyDisk((reason) => ctx.skip(reason));
    const errors: string[] = [];
    const none = () => undefined;
    const logger: Logger = {
      debug: none,
      info: none,
      warn: none,
      error: (m, f) => errors.push(`${m} ${JSON.stringify(f)}`),
    };
    const dataDir = path.join(d.dir, 'data');
    const broker = await Broker.start({ dataDir, topics: [{ name: 't', partitions: 1 }], logger });
    const c = await RawClient.authenticated(broker.address.port);
    // Fill the disk through the broker until a PRODUCE fails, then take the last bytes.
    for (let i = 0; i < 1000; i++) {
      const reply = await c.request(ProduceRequest, {
        codec: 0,
        topic: 't',
        key: Buffer.from(`k${i}`),
        value: Buffer.alloc(60_000, 1),
      });
      if (reply.op === Op.ERROR) break;
    }
    d.fill();
    // Something must still be written at stop: a record appended but not yet synced under acks=none would do; the
    // consumer offsets checkpoint and every partition's checkpoint and clean-shutdown marker are written regardless.
    await c.close();
    const stopped = await broker.stop().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(stopped).toBeInstanceOf(ShutdownIncompleteError);
    expect((stopped as Error).message).toMatch(/^the broker stopped, but its final sync failed: .*ENOSPC/);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^broker stopped, but its final sync failed .*ENOSPC/);
    expect(fs.existsSync(path.join(dataDir, LOCK_FILE))).toBe(false);
    expect(openFilesUnder(d.dir)).toEqual([]);
  });
});
