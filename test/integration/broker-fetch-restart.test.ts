/**
 * FETCH after a restart (`bench throughput --restart-before-fetch`): the broker reads segments this process did not
 * write, so every payload CRC is checked on that first read, and the replies must be byte for byte what the process
 * that wrote the records sent, records that take the raw path (storage/raw-reader.ts) and ones that do not alike.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { compressValue } from '../../src/protocol/compression.js';
import { Codec, FetchFlag, Op } from '../../src/protocol/opcodes.js';
import type { Frame } from '../../src/protocol/frame-decoder.js';
import { ConsumerHarness, fetchFrames, recordsIn, values } from '../helpers/consumer-harness.js';

const h = new ConsumerHarness();
afterEach(() => h.cleanup());

/** Every reply (payloads only: correls differ) of a group reading the topic to its end, `max` records a FETCH. */
async function readAll(group: string, max: number, flags: number): Promise<Frame[][]> {
  const c = await h.client();
  const replies: Frame[][] = [];
  for (;;) {
    const frames = await fetchFrames(c, 'orders', group, max, { flags });
    if (frames.length === 1) return replies;
    replies.push(frames);
  }
}

describe('FETCH after a restart', () => {
  it('sends the same reply bytes as before it, plain and other records mixed, and the same records', async () => {
    await h.start([{ name: 'orders', partitions: 2 }], { segmentBytes: 2048 });
    await h.append('orders', 1, 40, 'a');
    await h.append('orders', 1, 2, 'gz', {
      attrs: Codec.GZIP,
      value: compressValue(Codec.GZIP, Buffer.from('zipped')),
    });
    await h.append('orders', 1, 2, 'hd', { headers: [{ name: 'n', value: Buffer.from('v') }] });
    await h.append('orders', 1, 30, 'b');
    await h.append('orders', 2, 25, 'c', { key: Buffer.alloc(0) });
    await h.append('orders', 2, 5, 'd', { value: Buffer.alloc(0) });
    const shapes = [FetchFlag.BATCHED, FetchFlag.BATCHED | FetchFlag.HEADERS, 0];
    const before = await Promise.all(shapes.map((flags, i) => readAll(`before-${i}`, 7, flags)));
    await h.restart();
    const after = await Promise.all(shapes.map((flags, i) => readAll(`after-${i}`, 7, flags)));
    for (let i = 0; i < shapes.length; i++) {
      expect(after[i]!.map((r) => r.map((f) => [f.op, f.payload.toString('hex')]))).toEqual(
        before[i]!.map((r) => r.map((f) => [f.op, f.payload.toString('hex')])),
      );
    }
    const got = before[0]!.flatMap((r) => recordsIn(r));
    expect(got).toHaveLength(104);
    expect(values(got.filter((r) => r.partition === 1))).toEqual([
      ...Array.from({ length: 40 }, (_, i) => `a-${i}`),
      'zipped',
      'zipped',
      'hd-0',
      'hd-1',
      ...Array.from({ length: 30 }, (_, i) => `b-${i}`),
    ]);
    expect(before[0]!.every((r) => r.map((f) => f.op).join() === `${Op.RECORD_BATCH},${Op.OK}`)).toBe(true);
  });
});
