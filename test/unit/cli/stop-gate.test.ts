/**
 * StopGate: the next value of an input unless a stop comes first, without keeping the values it handed over (the
 * Promise.race it replaces kept every one of them reachable from the long-lived "stopped" promise).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { StopGate, STOPPED } from '../../../src/cli/stop-gate.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** How many of `n` values handed through `wait` are still reachable once the waits are over. */
async function reachable(n: number, wait: (value: Promise<object>) => Promise<unknown>): Promise<number> {
  const refs: WeakRef<object>[] = [];
  for (let i = 0; i < n; i++) {
    const value = { chunk: Buffer.alloc(16) };
    refs.push(new WeakRef(value));
    await wait(Promise.resolve(value));
  }
  // WeakRefs hold their targets until the current job ends.
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  return refs.filter((r) => r.deref() !== undefined).length;
}

describe('StopGate', () => {
  it('hands over each value, then STOPPED once stopped, also for a wait already under way', async () => {
    const gate = new StopGate();
    expect(await gate.next(Promise.resolve(1))).toBe(1);
    await expect(gate.next(Promise.reject(new Error('read failed')))).rejects.toThrow('read failed');
    const never = new Promise<number>(() => undefined);
    const waiting = gate.next(never);
    gate.stop();
    expect(await waiting).toBe(STOPPED);
    expect(gate.stopped).toBe(true);
    // A read that fails after the stop is not an unhandled rejection.
    expect(await gate.next(Promise.reject(new Error('late')))).toBe(STOPPED);
  });

  it('keeps none of the values it handed over, where a race against a pending promise keeps them all', async () => {
    const gate = new StopGate();
    expect(await reachable(50, (p) => gate.next(p))).toBeLessThanOrEqual(1);
    const stopped = new Promise<'stopped'>(() => undefined);
    expect(await reachable(50, (p) => Promise.race([p, stopped]))).toBe(50);
  });
});
