/**
 * cursorMoves: which start positions the batch consumer must write to its cursor group before the first FETCH. A
 * partition the cursor group would start at by itself (its committed offset, or 0 where it has none) needs nothing.
 */
import { describe, expect, it } from 'vitest';
import { cursorMoves } from '../../../../src/client/consumer/batch/group-offsets.js';

const at = (topic: string, partition: number, offset: bigint) => ({ topic, partition, offset });

describe('cursorMoves', () => {
  it('a fresh group (positions 0, no cursor group) needs no move', () => {
    expect(cursorMoves([at('t', 1, 0n), at('t', 2, 0n)], [])).toEqual([]);
  });

  it('moves only the partitions whose cursor differs, counting a missing cursor as 0', () => {
    const positions = [at('t', 1, 40n), at('t', 2, 0n), at('t', 3, 7n), at('u', 1, 5n)];
    // A crash left the cursor group past the group's watermark on t/1, exactly at it on t/3, and nowhere on t/2, u/1.
    const cursor = [at('t', 1, 90n), at('t', 3, 7n)];
    expect(cursorMoves(positions, cursor)).toEqual([at('t', 1, 40n), at('u', 1, 5n)]);
  });
});
