/** The in-flight window of one share-partition on its own: state moves, SPSO advance, limits, snapshots. */
import { describe, expect, it } from 'vitest';
import { type ArchivedNote, RecordState, SharePartition } from '../../../src/broker/share/share-partition.js';

const offsets = (n: number, from = 0) => Array.from({ length: n }, (_, i) => BigInt(from + i));

function window(n = 5): SharePartition {
  const p = new SharePartition('t', 1, 0n, 0n);
  p.appendAcquired(offsets(n), BigInt(n), 'a', 1_000, 30_000);
  return p;
}

describe('share-partition window', () => {
  it('the SPSO moves past a done prefix only', () => {
    const p = window();
    const [r0, r1, r2] = p.between(0n, 2n);
    p.accept(r1!);
    p.advance();
    expect(p.spso).toBe(0n);
    p.accept(r0!);
    p.advance();
    expect(p.spso).toBe(2n);
    p.reject(r2!, 'bad', []);
    p.advance();
    expect([p.spso, p.inFlightCount]).toEqual([3n, 2]);
  });

  it('expired locks become Available with their count; at the limit they are Archived with a note', () => {
    const p = window(2);
    const archived: ArchivedNote[] = [];
    expect(p.expire(30_999, 5, archived)).toBe(0);
    expect(p.expire(31_000, 5, archived)).toBe(2);
    expect([...p.inFlight()].map((e) => [e.state, e.deliveryCount])).toEqual([
      [RecordState.AVAILABLE, 1],
      [RecordState.AVAILABLE, 1],
    ]);
    const again = p.acquireAvailable('b', 10, 40_000, 30_000);
    expect(again.map((e) => [e.owner, e.deliveryCount])).toEqual([
      ['b', 2],
      ['b', 2],
    ]);
    expect(p.expire(70_000, 2, archived)).toBe(2);
    expect(archived.map((n) => [n.offset, n.disposition, n.deliveryCount])).toEqual([
      [0n, 'delivery-limit', 2],
      [1n, 'delivery-limit', 2],
    ]);
    expect(p.spso).toBe(2n);
  });

  it('a delayed release is not acquirable before its time; releaseMember frees only that member', () => {
    const p = window(3);
    const [r0] = p.between(0n, 0n);
    p.release(r0!, 5_000, 2_000, 5, []);
    expect(p.acquireAvailable('b', 10, 6_999, 30_000)).toEqual([]);
    expect(p.acquireAvailable('b', 10, 7_000, 30_000).map((e) => e.offset)).toEqual([0n]);
    expect(p.releaseMember('a', 8_000, 5, [])).toBe(2);
    expect([...p.inFlight()].map((e) => e.owner)).toEqual(['b', undefined, undefined]);
  });

  it('a move the table forbids throws (an Acknowledged record cannot be released)', () => {
    const p = window(1);
    const [r] = p.between(0n, 0n);
    p.accept(r!);
    expect(() => p.release(r!, 0, 0, 5, [])).toThrow(/no move/);
  });

  it('between() finds records by offset in a window with gaps (byte-position offsets)', () => {
    const p = new SharePartition('t', 1, 0n, 0n);
    p.appendAcquired([0n, 40n, 95n, 130n], 170n, 'a', 0, 1_000);
    expect(p.between(1n, 129n).map((e) => e.offset)).toEqual([40n, 95n]);
    expect(p.between(131n, 500n)).toEqual([]);
  });

  it('a snapshot restores with Acquired made Available and counts kept', () => {
    const p = window(3);
    const [r0] = p.between(0n, 0n);
    p.accept(r0!);
    p.advance();
    const s = p.snapshot();
    expect(s).toEqual({
      spso: 1n,
      speo: 3n,
      records: [
        { offset: 1n, state: RecordState.ACQUIRED, deliveryCount: 1 },
        { offset: 2n, state: RecordState.ACQUIRED, deliveryCount: 1 },
      ],
    });
    const back = SharePartition.restore('t', 1, s);
    expect([...back.inFlight()].map((e) => [e.state, e.deliveryCount, e.owner])).toEqual([
      [RecordState.AVAILABLE, 1, undefined],
      [RecordState.AVAILABLE, 1, undefined],
    ]);
  });
});
