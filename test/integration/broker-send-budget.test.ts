/**
 * Issue 11 item 3: every reply queued in the broker counts against the send budget, and a FETCH's offsets are
 * committed only for a reply that went out. A PRODUCE held at its fsync (a gate in the log layer) makes the replies
 * behind it wait; before the fix they were invisible to the budget and the FETCHes behind it committed at once.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { consumerRuntimeOf } from '../../src/broker/consumer/index.js';
import { encodeFrame } from '../../src/protocol/message.js';
import { DescribeTopicRequest, TopicDescriptionReply } from '../../src/protocol/messages/describe-topic.js';
import { FetchRequest, RecordBatchReply } from '../../src/protocol/messages/fetch.js';
import { ProduceAckReply, ProduceRequest } from '../../src/protocol/messages/produce.js';
import { ProduceBatchAckReply, ProduceBatchRequest } from '../../src/protocol/messages/produce-batch.js';
import { FetchFlag, Op } from '../../src/protocol/opcodes.js';
import { SyncGate, gatedLogFactory } from '../helpers/gated-sync.js';
import type { RawClient } from '../helpers/raw-client.js';
import { useTempBroker } from '../helpers/temp-broker.js';
import { eventually } from '../helpers/eventually.js';

const env = useTempBroker();
const VALUE = 16 * 1024;

async function startGated(options: Parameters<typeof env.start>[0] = {}) {
  const gate = new SyncGate();
  await env.start({
    topics: [
      { name: 'big', partitions: 1 },
      { name: 'slow', partitions: 1 },
    ],
    logFactory: gatedLogFactory(env.dataDir, 'slow', gate),
    ...options,
  });
  // A failed assertion must not leave a PRODUCE held: the broker's stop waits for it.
  env.track({ close: async () => gate.release() });
  return gate;
}

/** Stores `count` records of VALUE bytes in `big` (not gated); returns the offset after the last. */
async function fill(c: RawClient, count: number, first = 0): Promise<bigint> {
  const records = Array.from({ length: count }, (_, i) => ({
    key: Buffer.from(`k${first + i}`),
    value: Buffer.alloc(VALUE, i % 251),
  }));
  const ack = c.decode(
    ProduceBatchAckReply,
    await c.request(ProduceBatchRequest, { flags: 0, codec: 0, topic: 'big', records }),
  );
  expect(ack.acks).toHaveLength(count);
  return env.broker.topics.requireTopic('big').partitions[0]!.logEndOffset;
}

function until(what: string, cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  return eventually(cond, { what, timeoutMs, intervalMs: 0 });
}

/** One write: a PRODUCE to the gated topic, then `fetches` FETCHes of `big` as group g. */
function produceThenFetch(c: RawClient, fetches: number): Buffer[] {
  const correls = Array.from({ length: fetches + 1 }, () => randomBytes(16));
  const frames = [
    encodeFrame(ProduceRequest, correls[0]!, {
      codec: 0,
      topic: 'slow',
      key: Buffer.from('a'),
      value: Buffer.from('b'),
    }),
  ];
  for (let i = 1; i <= fetches; i++) {
    frames.push(
      encodeFrame(FetchRequest, correls[i]!, { topic: 'big', group: 'g', maxRecords: 1000, flags: FetchFlag.BATCHED }),
    );
  }
  c.writeRaw(Buffer.concat(frames));
  return correls;
}

describe('FETCH behind a PRODUCE waiting for its fsync', () => {
  it('polls only once the PRODUCE is answered; every record arrives once and the commit matches what was sent', async () => {
    const gate = await startGated({ consumer: { pollBytes: 4 * VALUE } });
    const c = await env.raw();
    const end = await fill(c, 48);
    gate.hold();
    const correls = produceThenFetch(c, 12);
    await until('the PRODUCE waits at its fsync', () => gate.waiting === 1);
    const rt = consumerRuntimeOf(env.broker);
    // Before the fix, all 12 FETCHes had polled, moved the cursor to the end and committed it by now.
    expect(rt.position('g', 'big', 1)).toBe(0n);
    expect(rt.offsets.get('g', 'big', 1)).toBeUndefined();
    gate.release();

    const ack = await c.waitFor((f) => f.correl.equals(correls[0]!));
    expect(c.decode(ProduceAckReply, ack).partition).toBe(1);
    const keys: string[] = [];
    for (const correl of correls.slice(1)) {
      const batch = c.decode(
        RecordBatchReply,
        await c.waitFor((f) => f.correl.equals(correl) && f.op === Op.RECORD_BATCH),
      );
      keys.push(...batch.records.map((r) => r.key.toString()));
      expect((await c.waitFor((f) => f.correl.equals(correl))).op).toBe(Op.OK);
    }
    expect(keys).toEqual(Array.from({ length: 48 }, (_, i) => `k${i}`));
    expect(c.closed).toBe(false);
    await until('the last reply is committed', () => rt.offsets.get('g', 'big', 1) === end);
  });

  it('a peer that stops reading is closed without committing what never reached the kernel', async () => {
    // 160 pipelined FETCHes (20 MiB) to a paused peer. Each reply is cut to half the 256 KiB cap, and a FETCH whose reply would
    // not fit beside the unsent bytes waits for them: once the kernel's buffers are full nothing drains, and the send
    // deadline closes the connection (a reply never passes the cap, so this is not a pending_send_too_large close).
    const gate = await startGated({
      maxPendingSendBytes: 256 * 1024,
      sendTimeoutMs: 500,
      consumer: { pollBytes: 64 * VALUE },
    });
    const c = await env.raw();
    for (let i = 0; i < 48; i++) await fill(c, 32, i * 32);
    let reason: string | undefined;
    env.broker.on((e) => {
      if (e.type === 'connection-closed') reason = e.reason;
    });
    gate.hold();
    c.socket.pause();
    produceThenFetch(c, 160);
    await until('the PRODUCE waits at its fsync', () => gate.waiting === 1);
    gate.release();
    await until('the broker closed the connection', () => reason !== undefined);
    expect(reason).toBe('send-deadline');
    c.socket.resume();
    await c.waitClosed();
    const received = c.frames
      .filter((f) => f.op === Op.RECORD_BATCH)
      .flatMap((f) => c.decode(RecordBatchReply, f).records);
    expect(received.length).toBeLessThan(48 * 32);
    const log = env.broker.topics.requireTopic('big').partitions[0]!;
    const receivedEnd =
      received.length === 0 ? 0n : log.read(received.at(-1)!.offset, { maxRecords: 1 })[0]!.nextOffset;
    // Before the fix every FETCH had committed at once: all 768 records, most of which never left the broker.
    expect(consumerRuntimeOf(env.broker).offsets.get('g', 'big', 1) ?? 0n).toBeLessThanOrEqual(receivedEnd);
    const again = await env.raw();
    const reply = await again.request(FetchRequest, {
      topic: 'big',
      group: 'g',
      maxRecords: 1,
      flags: FetchFlag.BATCHED,
    });
    const [next] = again.decode(RecordBatchReply, reply).records;
    // At least once: the group resumes at or before the first record the client did not get.
    expect(Number(next!.key.toString().slice(1))).toBeLessThanOrEqual(received.length);
  });

  it('a connection that closes while its FETCHes wait commits nothing; the group later reads from the start', async () => {
    const gate = await startGated();
    const c = await env.raw();
    await fill(c, 8);
    gate.hold();
    const closed = new Promise<void>((resolve) => env.broker.on((e) => e.type === 'connection-closed' && resolve()));
    produceThenFetch(c, 4);
    await until('the PRODUCE waits at its fsync', () => gate.waiting === 1);
    await c.close();
    gate.release();
    await closed;
    const rt = consumerRuntimeOf(env.broker);
    expect(rt.offsets.get('g', 'big', 1)).toBeUndefined();
    const again = await env.raw();
    const reply = await again.request(FetchRequest, {
      topic: 'big',
      group: 'g',
      maxRecords: 100,
      flags: FetchFlag.BATCHED,
    });
    expect(again.decode(RecordBatchReply, reply).records.map((r) => r.key.toString())).toEqual(
      Array.from({ length: 8 }, (_, i) => `k${i}`),
    );
  });
});

describe('replies held behind a deferred one', () => {
  it('count as pending send bytes and stay bounded: dispatch waits past half the budget, nothing is dropped', async () => {
    const budget = 16 * 1024;
    const gate = await startGated({ maxPendingSendBytes: budget });
    const c = await env.raw();
    const sample = encodeFrame(
      TopicDescriptionReply,
      Buffer.alloc(16),
      c.decode(TopicDescriptionReply, await c.request(DescribeTopicRequest, { name: 'big' })),
    );
    gate.hold();
    const produce = randomBytes(16);
    const describes = Array.from({ length: 4_000 }, () => randomBytes(16));
    c.writeRaw(
      Buffer.concat([
        encodeFrame(ProduceRequest, produce, {
          codec: 0,
          topic: 'slow',
          key: Buffer.from('a'),
          value: Buffer.from('b'),
        }),
        ...describes.map((correl) => encodeFrame(DescribeTopicRequest, correl, { name: 'big' })),
      ]),
    );
    await until('the held replies reach half the budget', () => env.broker.pendingSendBytes > budget / 2);
    // 4,000 replies would be about 4000 × sample bytes; dispatch stopped one reply past half the budget.
    expect(describes.length * sample.length).toBeGreaterThan(4 * budget);
    expect(env.broker.pendingSendBytes).toBeLessThanOrEqual(budget / 2 + sample.length);
    gate.release();
    expect((await c.waitFor((f) => f.correl.equals(produce))).op).toBe(Op.PRODUCE_ACK);
    for (const correl of describes)
      expect((await c.waitFor((f) => f.correl.equals(correl))).op).toBe(Op.TOPIC_DESCRIPTION);
    expect(c.closed).toBe(false);
    await until('nothing is pending', () => env.broker.pendingSendBytes === 0);
  });
});
