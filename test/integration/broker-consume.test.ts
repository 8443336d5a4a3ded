import { afterEach, describe, expect, it } from 'vitest';
import { compressValue } from '../../src/protocol/compression.js';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { CommitRequest } from '../../src/protocol/messages/commit.js';
import { SubscribeRequest } from '../../src/protocol/messages/subscribe.js';
import { Codec, FetchFlag, Isolation, Op } from '../../src/protocol/opcodes.js';
import { ZERO_CORREL } from '../../src/protocol/message.js';
import { RecordReply } from '../../src/protocol/messages/fetch.js';
import { encodeControlValue, RecordAttr } from '../../src/storage/record.js';
import {
  ConsumerHarness,
  errorCodeOf,
  eventually,
  fetchFrames,
  recordsIn,
  values,
} from '../helpers/consumer-harness.js';

const h = new ConsumerHarness();
afterEach(() => h.cleanup());

describe('FETCH reply shapes (wire.md §13 item 6)', () => {
  it('a batched FETCH of 10 records is exactly RECORD_BATCH then OK', async () => {
    await h.start([{ name: 'orders', partitions: 1 }]);
    await h.append('orders', 1, 10);
    const c = await h.client();
    const frames = await fetchFrames(c, 'orders', 'g', 100, { flags: FetchFlag.BATCHED });
    expect(frames.map((f) => f.op)).toEqual([Op.RECORD_BATCH, Op.OK]);
    const recs = recordsIn(frames);
    expect(values(recs)).toEqual(Array.from({ length: 10 }, (_, i) => `p1-${i}`));
    expect(recs[0]).toMatchObject({ topic: 'orders', partition: 1, offset: 0n, timestamp: 1_700_000_000_000n });
    expect(recs[1]!.offset).toBe(BigInt(recs[0]!.key.length + recs[0]!.value.length + 8 + 13 + 8));
  });

  it('an unbatched FETCH of 10 records is 10 RECORD frames then OK, all with the fetch correl', async () => {
    await h.start([{ name: 'orders', partitions: 1 }]);
    await h.append('orders', 1, 10);
    const c = await h.client();
    const frames = await fetchFrames(c, 'orders', 'g', 100);
    expect(frames).toHaveLength(11);
    expect(frames.slice(0, 10).every((f) => f.op === Op.RECORD)).toBe(true);
    expect(frames[10]!.op).toBe(Op.OK);
    expect(values(recordsIn(frames))).toEqual(Array.from({ length: 10 }, (_, i) => `p1-${i}`));
  });

  it('a batched FETCH with nothing to read gets only the OK', async () => {
    await h.start([{ name: 'orders', partitions: 2 }]);
    const c = await h.client();
    const frames = await fetchFrames(c, 'orders', 'g', 10, { flags: FetchFlag.BATCHED });
    expect(frames.map((f) => f.op)).toEqual([Op.OK]);
  });

  it('FETCH_FLAG_HEADERS adds a header block per entry; without it the same record comes without headers', async () => {
    await h.start([{ name: 'orders', partitions: 1 }]);
    await h.append('orders', 1, 1, 'h', { headers: [{ name: 'trace', value: Buffer.from('abc') }] });
    await h.append('orders', 1, 1, 'plain');
    const c = await h.client();
    const withHeaders = recordsIn(
      await fetchFrames(c, 'orders', 'g1', 10, { flags: FetchFlag.BATCHED | FetchFlag.HEADERS }),
      true,
    );
    expect(withHeaders.map((r) => r.headers)).toEqual([[{ name: 'trace', value: Buffer.from('abc') }], []]);
    const c2 = await h.client();
    const without = recordsIn(await fetchFrames(c2, 'orders', 'g2', 10, { flags: FetchFlag.BATCHED }));
    expect(values(without)).toEqual(['h-0', 'plain-0']);
  });
});

describe('FETCH positions and commits (semantics.md §11)', () => {
  it('6 records over 2 partitions cost 2 commits, and the next FETCH resumes without duplicates', async () => {
    await h.start([{ name: 'orders', partitions: 2 }]);
    await h.append('orders', 1, 3, 'a');
    await h.append('orders', 2, 3, 'b');
    const c = await h.client();
    const before = h.rt.offsets.commitCount;
    const first = values(recordsIn(await fetchFrames(c, 'orders', 'g', 100, { flags: FetchFlag.BATCHED })));
    expect(first.sort()).toEqual(['a-0', 'a-1', 'a-2', 'b-0', 'b-1', 'b-2']);
    await h.rt.commitsSettled('g');
    expect(h.rt.offsets.commitCount - before).toBe(2);
    expect(recordsIn(await fetchFrames(c, 'orders', 'g', 100, { flags: FetchFlag.BATCHED }))).toEqual([]);
    await h.rt.commitsSettled('g');
    expect(h.rt.offsets.commitCount - before).toBe(2);
    await h.append('orders', 2, 1, 'late');
    expect(values(recordsIn(await fetchFrames(c, 'orders', 'g', 100, { flags: FetchFlag.BATCHED })))).toEqual([
      'late-0',
    ]);
  });

  it('max_records = 3 on one partition resumes exactly at the 4th record', async () => {
    await h.start([{ name: 'orders', partitions: 1 }]);
    const offsets = await h.append('orders', 1, 8);
    const c = await h.client();
    expect(values(recordsIn(await fetchFrames(c, 'orders', 'g', 3)))).toEqual(['p1-0', 'p1-1', 'p1-2']);
    await h.rt.commitsSettled('g');
    expect(h.rt.offsets.get('g', 'orders', 1)).toBe(offsets[3]);
    const next = recordsIn(await fetchFrames(c, 'orders', 'g', 3));
    expect(next[0]!.offset).toBe(offsets[3]);
    expect(values(next)).toEqual(['p1-3', 'p1-4', 'p1-5']);
  });

  it('max_records = 12 over 4 partitions gives no partition more than 3', async () => {
    await h.start([{ name: 'orders', partitions: 4 }]);
    for (let p = 1; p <= 4; p++) await h.append('orders', p, 10);
    const c = await h.client();
    const recs = recordsIn(await fetchFrames(c, 'orders', 'g', 12, { flags: FetchFlag.BATCHED }));
    expect(recs).toHaveLength(12);
    const perPartition = new Map<number, number>();
    for (const r of recs) perPartition.set(r.partition, (perPartition.get(r.partition) ?? 0) + 1);
    expect([...perPartition.values()].every((n) => n === 3)).toBe(true);
    // Records from one partition are consecutive and ascending.
    const order = recs.map((r) => r.partition);
    expect(order.filter((p, i) => i === 0 || p !== order[i - 1])).toHaveLength(4);
  });

  it('FETCH covers every topic subscribed so far on the connection', async () => {
    await h.start([
      { name: 'orders', partitions: 1 },
      { name: 'audit', partitions: 1 },
    ]);
    await h.append('orders', 1, 1, 'o');
    await h.append('audit', 1, 1, 'a');
    const c = await h.client();
    expect(values(recordsIn(await fetchFrames(c, 'orders', 'g', 10)))).toEqual(['o-0']);
    await h.append('orders', 1, 1, 'o2');
    const both = recordsIn(await fetchFrames(c, 'audit', 'g', 10));
    expect(both.map((r) => `${r.topic}:${r.value.toString()}`).sort()).toEqual(['audit:a-0', 'orders:o2-0']);
  });

  it('decompresses gzip and snappy values and steps over control records without counting them', async () => {
    await h.start([{ name: 'orders', partitions: 1 }]);
    const log = h.broker.topics.requireTopic('orders').partitions[0]!;
    log.append([
      {
        attrs: Codec.GZIP,
        timestamp: 1n,
        key: Buffer.from('k'),
        value: compressValue(Codec.GZIP, Buffer.from('zipped')),
      },
      { attrs: RecordAttr.CONTROL, timestamp: 2n, key: Buffer.alloc(0), value: encodeControlValue(1, 7n, 0) },
      {
        attrs: Codec.SNAPPY,
        timestamp: 3n,
        key: Buffer.from('k'),
        value: compressValue(Codec.SNAPPY, Buffer.from('snapped')),
      },
    ]);
    await log.sync();
    const c = await h.client();
    const recs = recordsIn(await fetchFrames(c, 'orders', 'g', 2, { flags: FetchFlag.BATCHED }));
    expect(values(recs)).toEqual(['zipped', 'snapped']);
    await h.rt.commitsSettled('g');
    expect(h.rt.offsets.get('g', 'orders', 1)).toBe(log.logEndOffset);
  });

  it('a value that does not decompress fails the FETCH with ERR 7 and no OK; the cursor stays on it', async () => {
    await h.start([{ name: 'orders', partitions: 1 }]);
    await h.append('orders', 1, 1, 'bad', { attrs: Codec.GZIP, value: Buffer.from('not gzip') });
    const c = await h.client();
    const frames = await fetchFrames(c, 'orders', 'g', 10);
    expect(frames).toHaveLength(1);
    expect(errorCodeOf(frames)).toBe(ErrorCode.INTERNAL);
    expect(h.rt.offsets.get('g', 'orders', 1)).toBeUndefined();
  });

  it('restart keeps committed offsets: a new connection resumes where the group left off', async () => {
    await h.start([{ name: 'orders', partitions: 1 }]);
    await h.append('orders', 1, 5);
    const c = await h.client();
    expect(values(recordsIn(await fetchFrames(c, 'orders', 'g', 3)))).toEqual(['p1-0', 'p1-1', 'p1-2']);
    await h.restart();
    const c2 = await h.client();
    expect(values(recordsIn(await fetchFrames(c2, 'orders', 'g', 10)))).toEqual(['p1-3', 'p1-4']);
    const other = recordsIn(await fetchFrames(c2, 'orders', 'g', 10));
    expect(other).toEqual([]);
  });
});

describe('FETCH and SUBSCRIBE preconditions', () => {
  it('an unknown topic is ERR 5, sent alone without an OK', async () => {
    await h.start([{ name: 'orders', partitions: 1 }]);
    const c = await h.client();
    const frames = await fetchFrames(c, 'nope', 'g', 10);
    expect(frames).toHaveLength(1);
    expect(errorCodeOf(frames)).toBe(ErrorCode.TOPIC_MISSING);
  });

  it('mixing FETCH and SUBSCRIBE, or changing group or isolation, is ERR 8', async () => {
    await h.start([{ name: 'orders', partitions: 1 }]);
    const pull = await h.client();
    await fetchFrames(pull, 'orders', 'g', 1);
    expect(errorCodeOf(await pull.request(SubscribeRequest, { topic: 'orders', group: 'g' }))).toBe(
      ErrorCode.BAD_PROTOCOL,
    );
    expect(errorCodeOf(await fetchFrames(pull, 'orders', 'other', 1))).toBe(ErrorCode.BAD_PROTOCOL);
    expect(errorCodeOf(await fetchFrames(pull, 'orders', 'g', 1, { isolation: Isolation.READ_COMMITTED }))).toBe(
      ErrorCode.BAD_PROTOCOL,
    );
    // Any isolation byte other than 1 is read_uncommitted, so 7 matches the first FETCH.
    expect((await fetchFrames(pull, 'orders', 'g', 1, { isolation: 7 })).at(-1)!.op).toBe(Op.OK);
    const push = await h.client();
    expect((await push.request(SubscribeRequest, { topic: 'orders', group: 'g' })).op).toBe(Op.OK);
    expect(errorCodeOf(await fetchFrames(push, 'orders', 'g', 1))).toBe(ErrorCode.BAD_PROTOCOL);
  });
});

describe('COMMIT', () => {
  it('needs an earlier FETCH or SUBSCRIBE (ERR 8), an existing topic (ERR 5) and a partition in 1..N (ERR 1)', async () => {
    await h.start([{ name: 'orders', partitions: 2 }]);
    const c = await h.client();
    expect(errorCodeOf(await c.request(CommitRequest, { topic: 'orders', partition: 1, offset: 0n }))).toBe(
      ErrorCode.BAD_PROTOCOL,
    );
    await fetchFrames(c, 'orders', 'g', 1);
    expect(errorCodeOf(await c.request(CommitRequest, { topic: 'nope', partition: 1, offset: 0n }))).toBe(
      ErrorCode.TOPIC_MISSING,
    );
    expect(errorCodeOf(await c.request(CommitRequest, { topic: 'orders', partition: 0, offset: 0n }))).toBe(
      ErrorCode.BAD_FRAME,
    );
    expect(errorCodeOf(await c.request(CommitRequest, { topic: 'orders', partition: 3, offset: 0n }))).toBe(
      ErrorCode.BAD_FRAME,
    );
    expect(h.rt.offsets.offsetsOf('g')).toEqual([]);
  });

  it('stores any u64 durably, and a reconnecting consumer resumes from it', async () => {
    await h.start([{ name: 'orders', partitions: 1 }]);
    const offsets = await h.append('orders', 1, 4);
    const c = await h.client();
    await fetchFrames(c, 'orders', 'g', 10);
    expect((await c.request(CommitRequest, { topic: 'orders', partition: 1, offset: offsets[2]! })).op).toBe(Op.OK);
    expect((await c.request(CommitRequest, { topic: 'orders', partition: 1, offset: 2n ** 64n - 1n })).op).toBe(Op.OK);
    await h.rt.commitsSettled('g');
    expect(h.rt.offsets.get('g', 'orders', 1)).toBe(2n ** 64n - 1n);
    await c.request(CommitRequest, { topic: 'orders', partition: 1, offset: offsets[2]! });
    await h.restart();
    await h.rt.commitsSettled('g');
    expect(h.rt.offsets.get('g', 'orders', 1)).toBe(offsets[2]);
    const c2 = await h.client();
    expect(values(recordsIn(await fetchFrames(c2, 'orders', 'g', 10)))).toEqual(['p1-2', 'p1-3']);
  });
});

describe('SUBSCRIBE push delivery', () => {
  it('pushes records produced after SUBSCRIBE as RECORD frames with the zero correl, then commits them', async () => {
    await h.start([{ name: 'orders', partitions: 2 }]);
    await h.append('orders', 1, 2, 'before');
    const c = await h.client();
    expect((await c.request(SubscribeRequest, { topic: 'orders', group: 'g' })).op).toBe(Op.OK);
    const got: string[] = [];
    const take = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const f = await c.waitFor((x) => x.correl.equals(ZERO_CORREL));
        expect(f.op).toBe(Op.RECORD);
        got.push(c.decode(RecordReply, f).value.toString());
      }
    };
    await take(2);
    const after = await h.append('orders', 2, 3, 'after');
    await take(3);
    expect(got).toEqual(['before-0', 'before-1', 'after-0', 'after-1', 'after-2']);
    const leo = h.broker.topics.requireTopic('orders').partitions[1]!.logEndOffset;
    await eventually(() => h.rt.offsets.get('g', 'orders', 2) === leo);
    expect(after).toHaveLength(3);
  });

  it('gives each pass its buffer back to the reply pool once the socket took it, and the next pass reuses it', async () => {
    await h.start([{ name: 'orders', partitions: 1 }]);
    await h.append('orders', 1, 256, 'pooled', { value: Buffer.alloc(100, 1) });
    const c = await h.client();
    await c.request(SubscribeRequest, { topic: 'orders', group: 'g' });
    const take = async (n: number) => {
      for (let i = 0; i < n; i++) await c.waitFor((x) => x.op === Op.RECORD);
    };
    await take(256);
    // One pass of 256 records of ~170 bytes: past MIN_POOLED, so its buffer goes back once flushed.
    await eventually(() => h.rt.replyPool.idle.buffers === 1);
    await h.append('orders', 1, 256, 'again', { value: Buffer.alloc(100, 2) });
    await take(256);
    await eventually(
      () => h.rt.offsets.get('g', 'orders', 1) === h.broker.topics.requireTopic('orders').partitions[0]!.logEndOffset,
    );
    expect(h.rt.replyPool.idle.buffers).toBe(1);
  });

  it('covers topics added by a repeated SUBSCRIBE', async () => {
    await h.start([
      { name: 'orders', partitions: 1 },
      { name: 'audit', partitions: 1 },
    ]);
    const c = await h.client();
    await c.request(SubscribeRequest, { topic: 'orders', group: 'g' });
    await c.request(SubscribeRequest, { topic: 'audit', group: 'g' });
    await h.append('audit', 1, 1, 'a');
    const f = await c.waitFor((x) => x.op === Op.RECORD);
    expect(c.decode(RecordReply, f)).toMatchObject({ topic: 'audit', partition: 1 });
  });
});
