/**
 * The broker's sized SHARE_RECORDS encoder writes exactly what the generic codec writes for the same records,
 * offsets past 2^53 included, whether the records come one piece each or several to a piece.
 */
import { describe, expect, it } from 'vitest';
import { type ShareFetchResult, encodeShareRecordsFrame } from '../../../src/broker/share/record-frames.js';
import { encodeFrame } from '../../../src/protocol/message.js';
import { type ShareRecords, ShareRecordsReply } from '../../../src/protocol/messages/share-fetch.js';

const correl = Buffer.from(Array.from({ length: 16 }, (_, i) => i + 1));
const rec = (offset: bigint, key: string, value: string) => ({
  offset,
  timestamp: 1_700_000_000_123n,
  key: Buffer.from(key),
  value: Buffer.from(value),
});
type Rec = ReturnType<typeof rec>;
const piece = (topic: string, partition: number, deliveryCount: number, records: Rec[]) => ({
  topic,
  partition,
  deliveryCount,
  lockDeadlineMs: 1_700_000_030_123,
  records,
  values: records.map((r) => r.value),
});

/** The same reply as the generic codec takes it: one ShareRecord per record. */
function flat(m: ShareFetchResult): ShareRecords {
  return {
    brokerTimeMs: m.brokerTimeMs,
    results: m.results,
    records: m.pieces.flatMap((p) =>
      p.records.map((r, i) => ({
        topic: p.topic,
        partition: p.partition,
        offset: r.offset,
        timestamp: r.timestamp,
        deliveryCount: p.deliveryCount,
        lockDeadlineMs: BigInt(p.lockDeadlineMs),
        key: r.key,
        value: p.values[i]!,
      })),
    ),
  };
}

describe('encodeShareRecordsFrame', () => {
  it.each<[string, ShareFetchResult]>([
    ['empty', { brokerTimeMs: 5n, pieces: [], results: [] }],
    [
      'several topics and pieces, a multi-byte name, results',
      {
        brokerTimeMs: 1_700_000_000_000n,
        pieces: [
          piece('jobs', 1, 1, [rec(0n, 'k', 'v'), rec(2n ** 60n, '', 'x'.repeat(300)), rec(2n ** 60n + 9n, 'k2', '')]),
          piece('tâches', 4, 3, [rec(7n, 'é'.repeat(40), '')]),
        ],
        results: [{ topic: 'jobs', partition: 1, errorCode: 60, records: 0 }],
      },
    ],
  ])('%s', (_name, m) => {
    expect(encodeShareRecordsFrame(correl, m).toString('hex')).toBe(
      encodeFrame(ShareRecordsReply, correl, flat(m)).toString('hex'),
    );
  });
});
