import { describe, expect, it } from 'vitest';
import type { PolledPartition } from '../../../../src/broker/consumer/fetch-poller.js';
import { encodeRecordFrames } from '../../../../src/broker/consumer/record-frames.js';
import { FrameDecoder } from '../../../../src/protocol/frame-decoder.js';
import { decodePayload } from '../../../../src/protocol/message.js';
import { RecordBatchReply, RecordBatchWithHeadersReply, RecordReply } from '../../../../src/protocol/messages/fetch.js';
import { Op } from '../../../../src/protocol/opcodes.js';
import type { LogRecord, PartitionLog } from '../../../../src/storage/partition-log.js';

const correl = Buffer.from('0102030405060708090a0b0c0d0e0f10', 'hex');

function part(
  topic: string,
  partition: number,
  entries: Array<[key: string, value: string, offset: bigint]>,
): PolledPartition {
  const records: LogRecord[] = entries.map(([key, value, offset]) => ({
    attrs: 0,
    timestamp: 1_700_000_000_000n,
    key: Buffer.from(key),
    value: Buffer.from(value),
    headers: key === 'h' ? [{ name: 'n', value: Buffer.from('v') }] : undefined,
    producerId: undefined,
    epoch: undefined,
    size: 0,
    offset,
    nextOffset: offset + 1n,
  }));
  return {
    target: { topic, topicBytes: Buffer.from(topic), partition, log: {} as PartitionLog, cursor: 0n, ceiling: 0n },
    records,
    values: records.map((r) => r.value),
    nextCursor: 0n,
  };
}

describe('encodeRecordFrames', () => {
  const parts = [
    part('orders', 1, [
      ['k', 'v', 0n],
      ['h', 'w', 31n],
    ]),
    part('audit', 2, [['', 'x', 2n ** 60n + 7n]]),
  ];

  it('writes one RECORD_BATCH and an OK that decode to the same records', () => {
    const bytes = encodeRecordFrames(correl, parts, { batched: true, headers: false, withOk: true });
    const frames = new FrameDecoder().push(bytes);
    expect(frames.map((f) => f.op)).toEqual([Op.RECORD_BATCH, Op.OK]);
    expect(frames.every((f) => f.correl.equals(correl))).toBe(true);
    const batch = decodePayload(RecordBatchReply, frames[0]!.payload);
    expect(batch.records.map((r) => [r.topic, r.partition, r.offset, r.key.toString(), r.value.toString()])).toEqual([
      ['orders', 1, 0n, 'k', 'v'],
      ['orders', 1, 31n, 'h', 'w'],
      ['audit', 2, 2n ** 60n + 7n, '', 'x'],
    ]);
    expect(frames[1]!.payload.length).toBe(0);
  });

  it('writes u64 offsets exactly on both sides of 2^53, up to 2^64 - 1', () => {
    const edges = [2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 64n - 1n];
    const bytes = encodeRecordFrames(
      correl,
      [
        part(
          'edge',
          1,
          edges.map((o): [string, string, bigint] => ['k', 'v', o]),
        ),
      ],
      {
        batched: true,
        headers: false,
        withOk: false,
      },
    );
    const [frame] = new FrameDecoder().push(bytes);
    expect(decodePayload(RecordBatchReply, frame!.payload).records.map((r) => r.offset)).toEqual(edges);
  });

  it('adds header blocks (n = 0 for a record without headers) when asked', () => {
    const [frame] = new FrameDecoder().push(
      encodeRecordFrames(correl, parts, { batched: true, headers: true, withOk: false }),
    );
    expect(decodePayload(RecordBatchWithHeadersReply, frame!.payload).records.map((r) => r.headers)).toEqual([
      [],
      [{ name: 'n', value: Buffer.from('v') }],
      [],
    ]);
  });

  it('writes one RECORD per record otherwise, and only OK when there is nothing', () => {
    const frames = new FrameDecoder().push(
      encodeRecordFrames(correl, parts, { batched: false, headers: true, withOk: true }),
    );
    expect(frames.map((f) => f.op)).toEqual([Op.RECORD, Op.RECORD, Op.RECORD, Op.OK]);
    expect(decodePayload(RecordReply, frames[1]!.payload)).toMatchObject({
      topic: 'orders',
      offset: 31n,
      timestamp: 1_700_000_000_000n,
    });
    const empty = encodeRecordFrames(correl, [], { batched: true, headers: false, withOk: true });
    expect(empty.toString('hex')).toBe(`00000011 86 ${correl.toString('hex')}`.replace(/ /g, ''));
  });
});
