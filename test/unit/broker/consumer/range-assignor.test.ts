import { describe, expect, it } from 'vitest';
import { assignRange } from '../../../../src/broker/consumer/range-assignor.js';

const counts = (entries: Record<string, number>) => new Map(Object.entries(entries));

describe('assignRange', () => {
  it('gives floor(N/M) consecutive partitions each and one more to the first N mod M members, sorted by id', () => {
    const a = assignRange(
      [
        { id: 'c', topics: ['orders'] },
        { id: 'a', topics: ['orders'] },
        { id: 'b', topics: ['orders'] },
      ],
      counts({ orders: 7 }),
    );
    expect(a.get('a')!.get('orders')).toEqual([1, 2, 3]);
    expect(a.get('b')!.get('orders')).toEqual([4, 5]);
    expect(a.get('c')!.get('orders')).toEqual([6, 7]);
  });

  it('lists every subscribed topic, even one a member gets nothing of', () => {
    const a = assignRange(
      [
        { id: 'm1', topics: ['t'] },
        { id: 'm2', topics: ['t', 'u'] },
        { id: 'm3', topics: ['t'] },
      ],
      counts({ t: 2, u: 1 }),
    );
    expect(a.get('m3')!.get('t')).toEqual([]);
    expect(a.get('m1')!.get('t')).toEqual([1]);
    expect(a.get('m2')!.get('t')).toEqual([2]);
    expect(a.get('m2')!.get('u')).toEqual([1]);
    expect([...a.get('m1')!.keys()]).toEqual(['t']);
  });

  it('sorts members as strings, not numbers, and assigns nothing for a topic with no partition count', () => {
    const a = assignRange(
      [
        { id: '10', topics: ['t', 'gone'] },
        { id: '9', topics: ['t'] },
      ],
      counts({ t: 3 }),
    );
    expect(a.get('10')!.get('t')).toEqual([1, 2]);
    expect(a.get('9')!.get('t')).toEqual([3]);
    expect(a.get('10')!.get('gone')).toEqual([]);
  });
});
