import { afterEach, describe, expect, it, vi } from 'vitest';
import { LogFencedError, StorageError } from '../../../src/errors.js';
import { DEFAULT_GROUP_COMMIT_POLICY, GroupCommitter } from '../../../src/storage/group-committer.js';

/** An fsync the test completes by hand, so it can see who waits for which one. */
function manualFsync() {
  const pending: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  const fsync = () =>
    new Promise<void>((resolve, reject) => {
      pending.push({ resolve, reject });
    });
  return { fsync, pending };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

afterEach(() => {
  vi.useRealTimers();
});

describe('GroupCommitter, eager policy', () => {
  it('is the default', () => {
    expect(DEFAULT_GROUP_COMMIT_POLICY).toBe('eager');
    expect(new GroupCommitter(async () => {}).policy).toBe('eager');
  });

  it('starts an fsync at once, and everyone arriving meanwhile shares the next one', async () => {
    const { fsync, pending } = manualFsync();
    const gc = new GroupCommitter(fsync, { policy: 'eager' });
    const done: number[] = [];
    const first = gc.request().then(() => done.push(1));
    expect(pending).toHaveLength(1);
    const later = [2, 3, 4].map((n) => gc.request().then(() => done.push(n)));
    expect(pending).toHaveLength(1);
    pending[0]!.resolve();
    await first;
    await settle();
    // The first fsync may predate the later writes, so it releases only its own waiter and starts the next.
    expect(done).toEqual([1]);
    expect(pending).toHaveLength(2);
    pending[1]!.resolve();
    await Promise.all(later);
    expect(done).toEqual([1, 2, 3, 4]);
    expect(gc.fsyncCount).toBe(2);
  });

  it('a failed fsync fences it: its waiters, the ones queued behind it and every later request are rejected', async () => {
    const { fsync, pending } = manualFsync();
    const gc = new GroupCommitter(fsync, { policy: 'eager' });
    const a = gc.request();
    const queued = gc.request();
    const eio = Object.assign(new Error('EIO'), { code: 'EIO' });
    pending[0]!.reject(eio);
    await expect(a).rejects.toBeInstanceOf(LogFencedError);
    await expect(queued).rejects.toBeInstanceOf(LogFencedError);
    expect(gc.fenced?.cause).toBe(eio);
    // No later fsync may vouch for the writes the failed one covered: nothing is even attempted.
    await expect(gc.request()).rejects.toBeInstanceOf(LogFencedError);
    expect(pending).toHaveLength(1);
    expect(gc.fsyncCount).toBe(1);
    await gc.close();
  });

  it('close waits for the running fsync and refuses new requests', async () => {
    const { fsync, pending } = manualFsync();
    const gc = new GroupCommitter(fsync);
    const a = gc.request();
    let closed = false;
    const closing = gc.close().then(() => {
      closed = true;
    });
    await settle();
    expect(closed).toBe(false);
    pending[0]!.resolve();
    await closing;
    await a;
    await expect(gc.request()).rejects.toBeInstanceOf(StorageError);
  });
});

describe('GroupCommitter, linger policy (MoonMQ)', () => {
  it('the first waiter starts a 2 ms timer; when it fires one fsync wakes every waiter', async () => {
    vi.useFakeTimers();
    let calls = 0;
    const gc = new GroupCommitter(
      async () => {
        calls++;
      },
      { policy: 'linger' },
    );
    const waiters = Array.from({ length: 10 }, () => gc.request());
    expect(calls).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all(waiters);
    expect(calls).toBe(1);
    expect(gc.fsyncCount).toBe(1);
  });

  it('the 64th waiter triggers the fsync at once', async () => {
    vi.useFakeTimers();
    let calls = 0;
    const gc = new GroupCommitter(
      async () => {
        calls++;
      },
      { policy: 'linger', maxWaiters: 64 },
    );
    const waiters = Array.from({ length: 63 }, () => gc.request());
    expect(calls).toBe(0);
    waiters.push(gc.request());
    expect(calls).toBe(1);
    await Promise.all(waiters);
    // The timer the first waiter started was cancelled: nothing more happens when it would have fired.
    await vi.advanceTimersByTimeAsync(5);
    expect(calls).toBe(1);
  });
});
