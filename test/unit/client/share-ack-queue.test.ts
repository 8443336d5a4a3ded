/** How a share consumer turns its decisions into ack ranges. */
import { describe, expect, it } from 'vitest';
import { ShareAckQueue, type ShareConsumerRecord } from '../../../src/client/consumer/share-ack-queue.js';
import { ShareAckType } from '../../../src/protocol/opcodes.js';

const rec = (partition: number, offset: number, deliveryCount = 1): ShareConsumerRecord => ({
  topic: 't',
  partition,
  offset: BigInt(offset),
  timestamp: 0n,
  key: Buffer.alloc(0),
  value: Buffer.alloc(0),
  deliveryCount,
  lockDeadlineMs: 0n,
});

describe('share ack queue', () => {
  it('fresh records of one poll and partition with one decision become one range; others split', () => {
    const q = new ShareAckQueue();
    const records = [rec(1, 0), rec(1, 1), rec(1, 2), rec(1, 3), rec(2, 0)];
    q.delivered(records);
    q.decide(records[2]!, ShareAckType.RELEASE, 0, '');
    q.decideRest(ShareAckType.ACCEPT);
    const ranges = q.drain().map((p) => [p.partition, p.ranges.map((r) => [r.firstOffset, r.lastOffset, r.type])]);
    expect(ranges).toEqual([
      [
        1,
        [
          [0n, 1n, 1],
          [2n, 2n, 2],
          [3n, 3n, 1],
        ],
      ],
      [2, [[0n, 0n, 1]]],
    ]);
    expect(q.undecided()).toBe(0);
  });

  it('redelivered records get a range each; undecided records stay queued; a second poll never merges with the first', () => {
    const q = new ShareAckQueue();
    const first = [rec(1, 5, 2), rec(1, 7, 3), rec(1, 8)];
    q.delivered(first);
    const second = [rec(1, 9)];
    q.delivered(second);
    for (const r of [first[0]!, first[1]!, second[0]!]) q.decide(r, ShareAckType.ACCEPT, 0, '');
    expect(q.drain()[0]!.ranges.map((r) => [r.firstOffset, r.lastOffset])).toEqual([
      [5n, 5n],
      [7n, 7n],
      [9n, 9n],
    ]);
    expect(q.undecided()).toBe(1);
    expect(q.decide(first[0]!, ShareAckType.ACCEPT, 0, '')).toBe(false);
    expect(q.decide(first[2]!, ShareAckType.REJECT, 0, 'x')).toBe(true);
    expect(q.drain()[0]!.ranges).toEqual([
      { firstOffset: 8n, lastOffset: 8n, type: ShareAckType.REJECT, releaseDelayMs: 0, reason: 'x' },
    ]);
  });
});
