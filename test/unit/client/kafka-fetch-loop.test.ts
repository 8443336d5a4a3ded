/**
 * The Kafka backend's fetch loop (client/kafka/fetch-loop.ts) when a partition has no leader or its leader fails, as
 * during a broker kill: the round logic over a scripted consumer that answers metadata and fetches as the test
 * says, with @platformatic/kafka's own error classes (NetworkError, ResponseError with NOT_LEADER_OR_FOLLOWER) and
 * a manual clock for the backoff and the deadline. The cluster-level behaviour is covered by test/kafka.
 */
import { NetworkError, ResponseError } from '@platformatic/kafka';
import { afterEach, describe, expect, it } from 'vitest';
import { TimeoutError } from '../../../src/errors.js';
import type { FetchedRecord } from '../../../src/client/backend.js';
import { FetchLoop } from '../../../src/client/kafka/fetch-loop.js';
import type { GuardedConsumer } from '../../../src/client/kafka/guarded-clients.js';
import { ManualClock, settle } from '../../helpers/manual-clock.js';

type Callback = (error: Error | null, result?: unknown) => void;
interface Fetch {
  node: number;
  partitions: number[];
  offsets: bigint[];
  answer: Callback;
}

const FETCH_API = 1;
const NOT_LEADER_OR_FOLLOWER = 6;

/** A consumer of topic t (partitions 0 and 1) whose metadata leaders the test sets and whose fetches it answers. */
class ScriptedConsumer {
  leaders = [1, 2];
  brokers = new Set([1, 2]);
  metadataCalls: Array<{ forceUpdate: boolean }> = [];
  fetches: Fetch[] = [];
  topics = { trackAll: () => undefined, current: ['t'] };
  assignments = [{ topic: 't', partitions: [0, 1] }];

  async joinGroup(): Promise<void> {}
  on(): void {}
  off(): void {}
  async listOffsets(): Promise<Map<string, bigint[]>> {
    return new Map([['t', [0n, 0n]]]);
  }
  async listCommittedOffsets(): Promise<Map<string, bigint[]>> {
    return new Map([['t', [-1n, -1n]]]);
  }
  metadata(options: { forceUpdate?: boolean }, callback: Callback): void {
    this.metadataCalls.push({ forceUpdate: options.forceUpdate === true });
    const partitions = this.leaders.map((leader) => ({ leader }));
    const brokers = new Map([...this.brokers].map((id) => [id, { host: '127.0.0.1', port: 9000 + id }]));
    callback(null, { brokers, topics: new Map([['t', { id: 'tid', partitions }]]) });
  }
  fetch(
    options: { node: number; topics: Array<{ partitions: Array<{ partition: number; fetchOffset: bigint }> }> },
    callback: Callback,
  ) {
    const asked = options.topics.flatMap((t) => t.partitions);
    this.fetches.push({
      node: options.node,
      partitions: asked.map((p) => p.partition),
      offsets: asked.map((p) => p.fetchOffset),
      answer: callback,
    });
  }

  /** The oldest unanswered fetch to `node`. */
  take(node: number): Fetch {
    const i = this.fetches.findIndex((f) => f.node === node);
    expect(i, `a fetch to node ${node}`).toBeGreaterThanOrEqual(0);
    return this.fetches.splice(i, 1)[0]!;
  }
}

/** A fetch answer: one record at `offset` for each partition listed, errorCode per partition (0 by default). */
function answer(parts: Array<{ partition: number; offset?: bigint; errorCode?: number }>) {
  return {
    responses: [
      {
        topicId: 'tid',
        partitions: parts.map(({ partition, offset, errorCode = 0 }) => ({
          partitionIndex: partition,
          errorCode,
          records:
            offset === undefined || errorCode !== 0
              ? []
              : [
                  {
                    firstOffset: offset,
                    lastOffsetDelta: 0,
                    attributes: 0,
                    firstTimestamp: 1n,
                    records: [{ offsetDelta: 0, timestampDelta: 0n, key: null, value: Buffer.from('v'), headers: [] }],
                  },
                ],
        })),
      },
    ],
  };
}

const loops: FetchLoop[] = [];
afterEach(async () => {
  for (const loop of loops.splice(0)) await loop.close();
});

async function startLoop(deadlineMs = 10_000) {
  const consumer = new ScriptedConsumer();
  const clock = new ManualClock();
  const got: FetchedRecord[] = [];
  const failures: Error[] = [];
  const loop = new FetchLoop(
    consumer as unknown as GuardedConsumer,
    {
      clientId: 'test',
      topics: ['t'],
      isolationLevel: 0,
      maxWaitTime: 100,
      requestTimeout: 1_000,
      unavailableDeadlineMs: deadlineMs,
      clock,
    },
    {
      records: (r) => got.push(...r),
      reset: () => undefined,
      fetched: () => undefined,
      failed: (e) => failures.push(e),
    },
  );
  loops.push(loop);
  await loop.start();
  await settle();
  return { consumer, clock, got, failures };
}

const at = (records: FetchedRecord[]) => records.map((r) => `${r.partition}@${r.offset}`);

describe('FetchLoop with a partition that has no leader', () => {
  it('keeps fetching the others, refreshes metadata with backoff, and fetches the partition once it has a leader', async () => {
    const { consumer, clock, got, failures } = await startLoop();
    consumer.leaders = [1, -1];
    // The first round was planned with both leaders: node 2's fetch is lost with the broker.
    consumer.take(2).answer(new NetworkError('Connection closed'));
    consumer.take(1).answer(null, answer([{ partition: 0, offset: 0n }]));
    await settle();
    // Partition 0 is fetched on; no round sends anything to a leader of partition 1.
    consumer.take(1).answer(null, answer([{ partition: 0, offset: 1n }]));
    await settle();
    expect(at(got)).toEqual(['0@0', '0@1']);
    expect(consumer.fetches.map((f) => f.node)).toEqual([1]);
    expect(consumer.metadataCalls.some((c) => c.forceUpdate)).toBe(false);
    // After the backoff the metadata is asked for afresh, and again (doubling) while there is no leader.
    await clock.advance(100);
    expect(consumer.metadataCalls.filter((c) => c.forceUpdate)).toHaveLength(1);
    await clock.advance(200);
    expect(consumer.metadataCalls.filter((c) => c.forceUpdate)).toHaveLength(2);
    // A new leader: partition 1 is fetched from its position, and nothing failed.
    consumer.leaders = [1, 3];
    consumer.brokers.add(3);
    await clock.advance(400);
    const moved = consumer.take(3);
    expect(moved).toMatchObject({ partitions: [1], offsets: [0n] });
    moved.answer(null, answer([{ partition: 1, offset: 0n }]));
    await settle();
    expect(at(got)).toContain('1@0');
    expect(failures).toEqual([]);
  });

  it('fails only after the deadline, naming the partition and why', async () => {
    const { consumer, clock, failures } = await startLoop(5_000);
    consumer.leaders = [1, -1];
    consumer.take(2).answer(new NetworkError('Connection closed'));
    await settle();
    await clock.advance(4_900);
    expect(failures).toEqual([]);
    await clock.advance(2_000);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(TimeoutError);
    expect(failures[0]!.message).toMatch(/^fetch: partition 1 of t could not be fetched for \d+ ms \(no leader\)$/);
  });

  it('a NOT_LEADER_OR_FOLLOWER answer for one partition delivers the other partitions of that answer', async () => {
    const { consumer, clock, got, failures } = await startLoop();
    consumer.leaders = [1, 1];
    consumer.take(2).answer(new NetworkError('Connection closed'));
    consumer.take(1).answer(null, answer([{ partition: 0, offset: 0n }]));
    await clock.advance(100);
    const both = consumer.take(1);
    expect(both.partitions.sort()).toEqual([0, 1]);
    const response = answer([
      { partition: 0, offset: 1n },
      { partition: 1, errorCode: NOT_LEADER_OR_FOLLOWER },
    ]);
    const error = new ResponseError(
      FETCH_API,
      17,
      { '/responses/0/partitions/1': [NOT_LEADER_OR_FOLLOWER, null] },
      response,
    );
    both.answer(error);
    await settle();
    expect(at(got)).toEqual(['0@0', '0@1']);
    expect(failures).toEqual([]);
  });

  it('an error that fresh metadata cannot cure still fails the loop at once', async () => {
    const { consumer, failures } = await startLoop();
    const denied = new ResponseError(FETCH_API, 17, { '/responses/0/partitions/1': [29, null] }, answer([]));
    consumer.take(2).answer(denied); // TOPIC_AUTHORIZATION_FAILED
    await settle();
    expect(failures).toEqual([denied]);
  });
});
