/** The broker's sized SHARE_RECORDS encoder writes exactly what the generic codec writes, offsets past 2^53 included. */
import { describe, expect, it } from 'vitest';
import { encodeShareRecordsFrame } from '../../../src/broker/share/record-frames.js';
import { encodeFrame } from '../../../src/protocol/message.js';
import { type ShareRecords, ShareRecordsReply } from '../../../src/protocol/messages/share-fetch.js';

const correl = Buffer.from(Array.from({ length: 16 }, (_, i) => i + 1));
const rec = (topic: string, partition: number, offset: bigint, key: string, value: string) => ({
  topic,
  partition,
  offset,
  timestamp: 1_700_000_000_123n,
  deliveryCount: 3,
  lockDeadlineMs: 1_700_000_030_123n,
  key: Buffer.from(key),
  value: Buffer.from(value),
});

describe('encodeShareRecordsFrame', () => {
  it.each<[string, ShareRecords]>([
    ['empty', { brokerTimeMs: 5n, records: [], results: [] }],
    [
      'several topics, a multi-byte name, results',
      {
        brokerTimeMs: 1_700_000_000_000n,
        records: [
          rec('jobs', 1, 0n, 'k', 'v'),
          rec('jobs', 1, 2n ** 60n, '', 'x'.repeat(300)),
          rec('tâches', 4, 7n, 'é', ''),
        ],
        results: [{ topic: 'jobs', partition: 1, errorCode: 60, records: 0 }],
      },
    ],
  ])('%s', (_name, m) => {
    expect(encodeShareRecordsFrame(correl, m).toString('hex')).toBe(
      encodeFrame(ShareRecordsReply, correl, m).toString('hex'),
    );
  });
});
