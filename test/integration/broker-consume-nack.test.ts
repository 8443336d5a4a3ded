import { afterEach, describe, expect, it } from 'vitest';
import { decodeDlqEnvelope } from '../../src/broker/consumer/index.js';
import { compressValue } from '../../src/protocol/compression.js';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { NackAckReply, NackRequest } from '../../src/protocol/messages/nack.js';
import { Codec } from '../../src/protocol/opcodes.js';
import { ConsumerHarness, errorCodeOf, fetchFrames, recordsIn, values } from '../helpers/consumer-harness.js';

const h = new ConsumerHarness();
afterEach(() => h.cleanup());

describe('NACK', () => {
  it('needs an earlier FETCH or SUBSCRIBE (ERR 8) and a partition in 1..N (ERR 1); nothing is counted', async () => {
    await h.start([{ name: 'orders', partitions: 2 }]);
    await h.append('orders', 1, 1);
    const c = await h.client();
    const nack = (partition: number) => c.request(NackRequest, { topic: 'orders', partition, offset: 0n, reason: 'x' });
    expect(errorCodeOf(await nack(1))).toBe(ErrorCode.BAD_PROTOCOL);
    await fetchFrames(c, 'orders', 'g', 10);
    expect(errorCodeOf(await nack(0))).toBe(ErrorCode.BAD_FRAME);
    expect(errorCodeOf(await nack(3))).toBe(ErrorCode.BAD_FRAME);
    expect(errorCodeOf(await c.request(NackRequest, { topic: 'nope', partition: 1, offset: 0n, reason: '' }))).toBe(
      ErrorCode.TOPIC_MISSING,
    );
    expect(h.rt.nacks.count({ group: 'g', topic: 'orders', partition: 1, offset: 0n })).toBe(0);
  });

  it('rewinds the group to the record twice, then dead-letters it on the 3rd NACK and advances past it', async () => {
    await h.start([{ name: 'orders', partitions: 2 }]);
    const offsets = await h.append('orders', 2, 3, 'r', {
      attrs: Codec.GZIP,
      value: compressValue(Codec.GZIP, Buffer.from('poison')),
    });
    const c = await h.client();
    const nack = async () =>
      c.decode(
        NackAckReply,
        await c.request(NackRequest, { topic: 'orders', partition: 2, offset: offsets[1]!, reason: 'cannot parse' }),
      );

    expect(recordsIn(await fetchFrames(c, 'orders', 'g', 10))).toHaveLength(3);
    expect(await nack()).toEqual({ deadLettered: false, attempts: 1, dlqTopic: '' });
    await h.rt.commitsSettled('g');
    expect(h.rt.offsets.get('g', 'orders', 2)).toBe(offsets[1]);
    const again = recordsIn(await fetchFrames(c, 'orders', 'g', 10));
    expect(again.map((r) => r.offset)).toEqual([offsets[1], offsets[2]]);
    expect(await nack()).toEqual({ deadLettered: false, attempts: 2, dlqTopic: '' });
    await fetchFrames(c, 'orders', 'g', 10);
    expect(h.broker.topics.getTopic('orders.dlq')).toBeUndefined();

    expect(await nack()).toEqual({ deadLettered: true, attempts: 3, dlqTopic: 'orders.dlq' });
    const dlq = h.broker.topics.requireTopic('orders.dlq');
    expect(dlq.partitions).toHaveLength(2);
    const [moved] = dlq.partitions[1]!.read(0n, { maxRecords: 10 });
    expect(dlq.partitions[0]!.logEndOffset).toBe(0n);
    expect(moved!.key.toString()).toBe('k-r-1');
    const groupBytes = Buffer.from('g');
    const reasonBytes = Buffer.from('cannot parse');
    const expected = Buffer.concat([
      Buffer.from([1]),
      u32(6),
      Buffer.from('orders'),
      u32(2),
      u64(offsets[1]!),
      u64(1_700_000_000_001n),
      u32(groupBytes.length),
      groupBytes,
      Buffer.from([0, 3]),
      u32(reasonBytes.length),
      reasonBytes,
      u32(6),
      Buffer.from('poison'),
    ]);
    expect(moved!.value.toString('hex')).toBe(expected.toString('hex'));
    expect(decodeDlqEnvelope(moved!.value).attempts).toBe(3);
    await h.rt.commitsSettled('g');
    expect(h.rt.offsets.get('g', 'orders', 2)).toBe(h.broker.topics.requireTopic('orders').partitions[1]!.logEndOffset);
    expect(h.rt.nacks.count({ group: 'g', topic: 'orders', partition: 2, offset: offsets[1]! })).toBe(0);
  });

  it('a NACK of an offset where no record starts is ERR 7 and counts nothing', async () => {
    await h.start([{ name: 'orders', partitions: 1 }]);
    await h.append('orders', 1, 2);
    const c = await h.client();
    expect(values(recordsIn(await fetchFrames(c, 'orders', 'g', 10)))).toEqual(['p1-0', 'p1-1']);
    const leo = h.broker.topics.requireTopic('orders').partitions[0]!.logEndOffset;
    expect(errorCodeOf(await c.request(NackRequest, { topic: 'orders', partition: 1, offset: leo, reason: '' }))).toBe(
      ErrorCode.INTERNAL,
    );
    await h.rt.commitsSettled('g');
    expect(h.rt.offsets.get('g', 'orders', 1)).toBe(leo);
  });
});

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

function u64(n: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(n);
  return b;
}
