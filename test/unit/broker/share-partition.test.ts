/** The in-flight window of one share-partition on its own: runs, state moves, SPSO advance, limits, snapshots. */
import { describe, expect, it } from 'vitest';
import { type ArchivedNote, RecordState, SharePartition } from '../../../src/broker/share/share-partition.js';

const offsets = (n: number, from = 0) => BigUint64Array.from({ length: n }, (_, i) => BigInt(from + i));

function window(n = 5): SharePartition {
  const p = new SharePartition('t', 1, 0n, 0n);
  p.appendAcquired(offsets(n), BigInt(n), 'a', 1_000, 30_000);
  return p;
}

const runs = (p: SharePartition) => [...p.inFlight()].map((r) => [r.first, r.last, r.count, r.state, r.deliveryCount]);

describe('share-partition window', () => {
  it('one read makes one run; an ack range splits it at its ends and moves the middle in one step', () => {
    const p = window(5);
    expect(runs(p)).toEqual([[0n, 4n, 5, RecordState.ACQUIRED, 1]]);
    expect(p.heldBy('a', 1n, 2n)).toBe(2);
    for (const r of p.isolate(1n, 2n)) p.accept(r);
    p.advance();
    expect(runs(p)).toEqual([
      [0n, 0n, 1, RecordState.ACQUIRED, 1],
      [1n, 2n, 2, RecordState.ACKNOWLEDGED, 1],
      [3n, 4n, 2, RecordState.ACQUIRED, 1],
    ]);
    expect(p.spso).toBe(0n);
    for (const r of p.isolate(0n, 0n)) p.accept(r);
    p.advance();
    expect([p.spso, p.inFlightCount]).toEqual([3n, 2]);
    expect(p.heldBy('b', 3n, 3n)).toBe(-1);
  });

  it('expired locks become Available with their count; at the limit they are Archived with a note per record', () => {
    const p = window(2);
    const archived: ArchivedNote[] = [];
    expect(p.expire(30_999, 5, archived)).toBe(0);
    expect(p.expire(31_000, 5, archived)).toBe(2);
    expect(runs(p)).toEqual([[0n, 1n, 2, RecordState.AVAILABLE, 1]]);
    const [run] = p.acquirable(40_000);
    const again = p.acquireFront(run!, 2, 'b', 40_000, 30_000);
    expect([again.owner, again.deliveryCount, again.count]).toEqual(['b', 2, 2]);
    expect(p.expire(70_000, 2, archived)).toBe(2);
    expect(archived.map((n) => [n.offset, n.disposition, n.deliveryCount])).toEqual([
      [0n, 'delivery-limit', 2],
      [1n, 'delivery-limit', 2],
    ]);
    expect(p.spso).toBe(2n);
  });

  it('a delayed release is not acquirable before its time; acquiring part of a run splits it; releaseMember frees only that member', () => {
    const p = window(3);
    const [r0] = p.isolate(0n, 0n);
    p.release(r0!, 5_000, 2_000, 5, []);
    expect(p.acquirable(6_999)).toEqual([]);
    const [ready] = p.acquirable(7_000);
    expect(p.acquireFront(ready!, 1, 'b', 7_000, 30_000).first).toBe(0n);
    expect(p.releaseMember('a', 8_000, 5, [])).toBe(2);
    expect([...p.inFlight()].map((r) => [r.first, r.count, r.owner])).toEqual([
      [0n, 1, 'b'],
      [1n, 2, undefined],
    ]);
    const [rest] = p.acquirable(9_000);
    p.acquireFront(rest!, 1, 'c', 9_000, 30_000);
    expect([...p.inFlight()].map((r) => [r.first, r.count, r.owner, r.deliveryCount])).toEqual([
      [0n, 1, 'b', 2],
      [1n, 1, 'c', 2],
      [2n, 1, undefined, 1],
    ]);
  });

  it('a move the table forbids throws (an Acknowledged record cannot be released)', () => {
    const p = window(1);
    const [r] = p.isolate(0n, 0n);
    p.accept(r!);
    expect(() => p.release(r!, 0, 0, 5, [])).toThrow(/no move/);
  });

  it('ranges find records by offset in a window with gaps (byte-position offsets)', () => {
    const p = new SharePartition('t', 1, 0n, 0n);
    p.appendAcquired(BigUint64Array.of(0n, 40n, 95n, 130n), 170n, 'a', 0, 1_000);
    expect(p.heldBy('a', 1n, 129n)).toBe(2);
    expect(p.heldBy('a', 131n, 500n)).toBe(0);
    expect(p.isolate(1n, 129n).map((r) => [r.first, r.last, r.count])).toEqual([[40n, 95n, 2]]);
    expect(runs(p).map((r) => r.slice(0, 3))).toEqual([
      [0n, 0n, 1],
      [40n, 95n, 2],
      [130n, 130n, 1],
    ]);
  });

  it('a snapshot merges like neighbours and restores with Acquired made Available, counts kept', () => {
    const p = window(4);
    p.appendAcquired(offsets(2, 4), 6n, 'b', 1_000, 30_000);
    for (const r of p.isolate(0n, 0n)) p.accept(r);
    p.advance();
    const s = p.snapshot();
    expect(s).toEqual({
      spso: 1n,
      speo: 6n,
      runs: [{ first: 1n, last: 5n, records: 5, state: RecordState.ACQUIRED, deliveryCount: 1 }],
    });
    const back = SharePartition.restore('t', 1, s);
    expect(runs(back)).toEqual([[1n, 5n, 5, RecordState.AVAILABLE, 1]]);
    expect(back.inFlightCount).toBe(5);
    // A restored run does not know its records' offsets until it is read again (resolve).
    const [run] = back.acquirable(0);
    expect(run!.offsets).toBeUndefined();
    back.resolve(run!, BigUint64Array.of(3n, 4n, 5n));
    expect([back.spso, back.inFlightCount, runs(back)]).toEqual([3n, 3, [[3n, 5n, 3, RecordState.AVAILABLE, 1]]]);
  });

  it('a restored run the log no longer holds is dropped', () => {
    const back = SharePartition.restore('t', 1, {
      spso: 0n,
      speo: 9n,
      runs: [{ first: 0n, last: 8n, records: 9, state: RecordState.AVAILABLE, deliveryCount: 2 }],
    });
    back.resolve(back.acquirable(0)[0]!, new BigUint64Array(0));
    expect([back.spso, back.inFlightCount]).toEqual([9n, 0]);
  });
});
