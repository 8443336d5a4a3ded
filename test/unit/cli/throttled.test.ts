/**
 * The progress line's throttle: at most one draw per interval, and the last update of a burst is drawn even when
 * nothing follows it (the consume progress line once stopped at "consuming T" after a burst of three records).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { throttled } from '../../../src/cli/terminal.js';

describe('throttled', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
  afterEach(() => vi.useRealTimers());

  it('draws the first update at once, folds a burst into one trailing draw, and draws nothing more', () => {
    let value = 0;
    const seen: number[] = [];
    const update = throttled(() => seen.push(value), 100);
    value = 1;
    update();
    value = 2;
    update();
    value = 3;
    update();
    expect(seen).toEqual([1]);
    vi.advanceTimersByTime(99);
    expect(seen).toEqual([1]);
    vi.advanceTimersByTime(1);
    expect(seen).toEqual([1, 3]);
    vi.advanceTimersByTime(1000);
    expect(seen).toEqual([1, 3]);
    value = 4;
    update();
    expect(seen).toEqual([1, 3, 4]);
  });
});
