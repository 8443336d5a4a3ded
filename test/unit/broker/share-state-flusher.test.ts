/**
 * The share-state group commit on its own: requests during a flush share the single next one, which snapshots
 * the changes made before it started; a failed flush rejects its waiters and leaves its partitions dirty.
 */
import { describe, expect, it } from 'vitest';
import { SharePartition } from '../../../src/broker/share/share-partition.js';
import { StateFlusher } from '../../../src/broker/share/state-flusher.js';

/** A write that records what each flush saw and completes only when the test says so. */
function harness() {
  const parts = [new SharePartition('t', 1, 0n, 0n), new SharePartition('t', 2, 0n, 0n)];
  const flushes: Array<{ partitions: number[]; speos: bigint[]; finish: (err?: Error) => void }> = [];
  const flusher = new StateFlusher(
    () => parts,
    (dirty) =>
      new Promise<void>((resolve, reject) => {
        flushes.push({
          partitions: dirty.map((p) => p.partition),
          speos: dirty.map((p) => p.snapshot().speo),
          finish: (err) => (err ? reject(err) : resolve()),
        });
      }),
  );
  const change = (i: number, speo: bigint) => parts[i]!.appendAcquired(new BigUint64Array(0), speo, 'm', 0, 1_000);
  return { parts, flushes, flusher, change };
}

const settled = async (p: Promise<void>) => {
  let state = 'pending';
  p.then(
    () => (state = 'resolved'),
    () => (state = 'rejected'),
  );
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return state;
};

describe('StateFlusher', () => {
  it('requests made while a flush runs share one next flush that covers all their changes', async () => {
    const { flushes, flusher, change } = harness();
    change(0, 10n);
    const first = flusher.request();
    expect(flushes.map((f) => f.partitions)).toEqual([[1]]);
    change(0, 20n);
    const a = flusher.request();
    change(1, 5n);
    const b = flusher.request();
    expect(flushes).toHaveLength(1);
    flushes[0]!.finish();
    await first;
    expect(await settled(a)).toBe('pending');
    await eventuallyLength(flushes, 2);
    expect([flushes[1]!.partitions, flushes[1]!.speos]).toEqual([
      [1, 2],
      [20n, 5n],
    ]);
    flushes[1]!.finish();
    await Promise.all([a, b]);
    expect(flusher.flushes).toBe(2);
    // Nothing dirty, nothing running: a request resolves without a write.
    await flusher.request();
    expect(flushes).toHaveLength(2);
  });

  it('a request is never released by a flush that started before its change', async () => {
    const { flushes, flusher, change } = harness();
    change(0, 10n);
    const first = flusher.request();
    change(1, 7n);
    const late = flusher.request();
    flushes[0]!.finish();
    await first;
    expect(await settled(late)).toBe('pending');
    await eventuallyLength(flushes, 2);
    expect(flushes[1]!.partitions).toEqual([2]);
    flushes[1]!.finish();
    await late;
  });

  it('a failed flush rejects its waiters and marks its partitions dirty for the next one', async () => {
    const { parts, flushes, flusher, change } = harness();
    change(0, 10n);
    const failing = flusher.request();
    flushes[0]!.finish(new Error('disk gone'));
    await expect(failing).rejects.toThrow('disk gone');
    expect(parts[0]!.dirty).toBe(true);
    const retry = flusher.request();
    expect(flushes[1]!.partitions).toEqual([1]);
    flushes[1]!.finish();
    await retry;
  });
});

async function eventuallyLength(list: unknown[], n: number): Promise<void> {
  for (let i = 0; i < 50 && list.length < n; i++) await Promise.resolve();
  expect(list).toHaveLength(n);
}
