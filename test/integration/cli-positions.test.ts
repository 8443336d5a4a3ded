/**
 * The library half of `consume --from`, `group reset-offsets` and `topic create --if-not-exists` (cli/positions.ts,
 * reset-offsets.ts, create-topic.ts) and the connection helpers of cli/connect.ts, against a real broker: each
 * position resolves to the offsets the broker holds, commits land where the report says, a live group is refused,
 * a refused connection says what to do.
 */
import net from 'node:net';
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  abortableDelay,
  openClient,
  withClient,
  withMoonmqClient,
  withRefusedHint,
  writeBytes,
} from '../../src/cli/connect.js';
import { createTopicIfMissing } from '../../src/cli/create-topic.js';
import { CommandFailure } from '../../src/cli/error-report.js';
import { commitTargets, parsePosition, resolveTargets } from '../../src/cli/positions.js';
import { resetOffsets } from '../../src/cli/reset-offsets.js';
import type { Client } from '../../src/client/client.js';
import { ConnectionError, UsageError } from '../../src/errors.js';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker();

describe('parsePosition', () => {
  it('reads the words, an offset, -N and @TIMESTAMP; anything else is a usage error', () => {
    expect(parsePosition('beginning')).toEqual({ kind: 'earliest' });
    expect(parsePosition('earliest')).toEqual({ kind: 'earliest' });
    expect(parsePosition('end')).toEqual({ kind: 'latest' });
    expect(parsePosition('latest')).toEqual({ kind: 'latest' });
    expect(parsePosition('18446744073709551615')).toEqual({ kind: 'offset', offset: 2n ** 64n - 1n });
    expect(parsePosition('-3')).toEqual({ kind: 'last', count: 3 });
    expect(parsePosition('@1700000000000')).toEqual({ kind: 'timestamp', timestampMs: 1_700_000_000_000n });
    for (const bad of ['-0', 'committed', '1.5', '@', '@-1', '', ' 1'])
      expect(() => parsePosition(bad), bad).toThrow(UsageError);
  });
});

/** Two partitions with `perPartition` records each; returns each partition's acked offsets in order. */
async function seed(client: Client, perPartition: number): Promise<Map<number, bigint[]>> {
  await client.createTopic('t', 2);
  const offsets = new Map<number, bigint[]>([
    [1, []],
    [2, []],
  ]);
  for (const partition of [1, 2]) {
    const records = Array.from({ length: perPartition }, (_, i) => ({ value: `p${partition}-${i}` }));
    const { acks, error } = await client.produceBatch('t', records, { partition });
    expect(error).toBeUndefined();
    offsets.get(partition)!.push(...acks.map((a) => a.offset));
  }
  return offsets;
}

describe('resolveTargets and commitTargets', () => {
  it('resolves each position kind per chosen partition', async () => {
    await env.start();
    const client = await env.client();
    const acked = await seed(client, 5);
    const open = () => env.client();
    const bounds = await client.listOffsets('t');
    const p = (n: number) => bounds.partitions.find((b) => b.partition === n)!;

    expect(await resolveTargets(client, open, 't', { kind: 'earliest' })).toEqual(
      new Map([
        [1, p(1).earliest],
        [2, p(2).earliest],
      ]),
    );
    expect(await resolveTargets(client, open, 't', { kind: 'latest' }, [2])).toEqual(new Map([[2, p(2).latest]]));
    expect(await resolveTargets(client, open, 't', { kind: 'offset', offset: 7n }, [1])).toEqual(new Map([[1, 7n]]));
    // -2: the offset of the second-to-last record of each partition (offsets are opaque byte positions).
    expect(await resolveTargets(client, open, 't', { kind: 'last', count: 2 })).toEqual(
      new Map([
        [1, acked.get(1)![3]!],
        [2, acked.get(2)![3]!],
      ]),
    );
    // More than a partition holds: from its earliest.
    expect(await resolveTargets(client, open, 't', { kind: 'last', count: 50 }, [1])).toEqual(
      new Map([[1, p(1).earliest]]),
    );
    // A timestamp before everything: each partition's first record.
    expect(await resolveTargets(client, open, 't', { kind: 'timestamp', timestampMs: 0n })).toEqual(
      new Map([
        [1, acked.get(1)![0]!],
        [2, acked.get(2)![0]!],
      ]),
    );
    await expect(resolveTargets(client, open, 't', { kind: 'earliest' }, [3])).rejects.toThrow(
      new UsageError('partition 3 does not exist: t has partitions 1..2 (moonmq numbers them from 1)'),
    );
    // The -N scan's throwaway group is deleted afterwards.
    expect((await client.listGroups()).map((g) => g.groupId)).toEqual([]);
  });

  it('commits the targets, and gives back the record its side FETCH took from a partition not being reset', async () => {
    await env.start();
    const client = await env.client();
    const acked = await seed(client, 3);
    const target = acked.get(2)![1]!;
    await commitTargets(() => env.client(), 't', 'g', new Map([[2, target]]), 5_000);
    expect((await client.describeGroup('g')).offsets.find((o) => o.topic === 't' && o.partition === 2)?.offset).toBe(
      target,
    );
    // Read as the group from a fresh connection: partition 2 from the target, and partition 1 whole, since the record
    // the side FETCH took from it (if any) was committed back.
    const reader = await env.client();
    const seen: string[] = [];
    for (;;) {
      const { records } = await reader.fetch('t', 'g', { maxRecords: 100 });
      if (records.length === 0) break;
      seen.push(...records.map((r) => r.value.toString()));
    }
    expect(seen.sort()).toEqual(['p1-0', 'p1-1', 'p1-2', 'p2-1', 'p2-2']);
    await commitTargets(() => Promise.reject(new Error('must not connect')), 't', 'g', new Map(), 5_000);
  });
});

describe('resetOffsets', () => {
  it('reports current and new offsets, commits only with execute, and knows an unknown group', async () => {
    await env.start();
    const client = await env.client();
    const acked = await seed(client, 3);
    const open = () => env.client();
    const dry = await resetOffsets(client, open, {
      group: 'g',
      topic: 't',
      position: { kind: 'latest' },
      execute: false,
      timeoutMs: 5_000,
    });
    const latest = (await client.listOffsets('t')).partitions.map((b) => b.latest);
    expect(dry).toEqual({
      group: 'g',
      topic: 't',
      executed: false,
      partitions: [
        { partition: 1, current: null, target: latest[0] },
        { partition: 2, current: null, target: latest[1] },
      ],
    });
    await expect(client.describeGroup('g')).rejects.toMatchObject({ errorCode: ErrorCode.GROUP_MISSING });

    const done = await resetOffsets(client, open, {
      group: 'g',
      topic: 't',
      position: { kind: 'offset', offset: acked.get(1)![2]! },
      partitions: [1],
      execute: true,
      timeoutMs: 5_000,
    });
    expect(done.partitions).toEqual([{ partition: 1, current: null, target: acked.get(1)![2] }]);
    const again = await resetOffsets(client, open, {
      group: 'g',
      topic: 't',
      position: { kind: 'earliest' },
      partitions: [1],
      execute: false,
      timeoutMs: 5_000,
    });
    expect(again.partitions[0]!.current).toBe(acked.get(1)![2]);
  });

  it('is refused while the group has a live member', async () => {
    await env.start();
    const client = await env.client();
    await seed(client, 1);
    const member = await env.client();
    await member.joinGroup('live', ['t']);
    const refusal = resetOffsets(client, () => env.client(), {
      group: 'live',
      topic: 't',
      position: { kind: 'earliest' },
      execute: true,
      timeoutMs: 5_000,
    });
    await expect(refusal).rejects.toBeInstanceOf(CommandFailure);
    await expect(refusal).rejects.toThrow(/group live has 1 live member\(s\); stop them first/u);
  });
});

describe('createTopicIfMissing', () => {
  it('creates a missing topic and leaves an existing one as it is', async () => {
    await env.start();
    const client = await env.client();
    expect(await createTopicIfMissing(client, 'fresh', 3)).toEqual({ topic: 'fresh', partitions: 3, created: true });
    expect(await createTopicIfMissing(client, 'fresh', 8)).toEqual({ topic: 'fresh', partitions: 3, created: false });
    // A refused create of a name that still does not exist is that refusal, not "created: false".
    await expect(createTopicIfMissing(client, 'bad/name', 1)).rejects.toBeInstanceOf(UsageError);
  });
});

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('connect helpers', () => {
  it('a refused connection names the address and says how to start a broker; other errors pass through', async () => {
    const port = await closedPort();
    const flags = { broker: { host: '127.0.0.1', port }, timeout: 2_000 };
    const error = await openClient(flags).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toContain(
      `is a broker running at 127.0.0.1:${port}? start one with \`crater broker start\`, or set CRATER_BROKER / --broker`,
    );
    expect(((error as Error).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    const other = new ConnectionError('reset', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) });
    expect(withRefusedHint(other, 'a:1')).toBe(other);
    const plain = new Error('not a connection error');
    expect(withRefusedHint(plain, 'a:1')).toBe(plain);
  });

  it('withClient and withMoonmqClient close the client after the callback, also when it throws', async () => {
    await env.start();
    const flags = { broker: { host: '127.0.0.1', port: env.broker.address.port }, timeout: 5_000 };
    await withClient(flags, async (c) => c.createTopic('w', 1));
    let seen: Client | undefined;
    await expect(
      withMoonmqClient(flags, 'share groups', async (c) => {
        seen = c;
        expect(await c.listTopics()).toEqual(['w']);
        throw new Error('callback failed');
      }),
    ).rejects.toThrow('callback failed');
    await expect(seen!.listTopics()).rejects.toBeInstanceOf(ConnectionError);
  });

  it('writeBytes waits for drain, and resolves false once the reader is gone or the signal aborts', async () => {
    const aborted = new AbortController();
    aborted.abort();
    expect(await writeBytes(new PassThrough(), 'x', aborted.signal)).toBe(false);

    const pending: Array<() => void> = [];
    const slow = new Writable({ highWaterMark: 2, write: (_c, _e, cb) => pending.push(cb) });
    const signal = new AbortController();
    let result: boolean | undefined;
    const write = writeBytes(slow, 'hello', signal.signal).then((r) => (result = r));
    await new Promise((r) => setImmediate(r));
    expect(result).toBeUndefined();
    pending.shift()!();
    await write;
    expect(result).toBe(true);

    const stuck = new Writable({ highWaterMark: 2, write: () => undefined });
    const stop = new AbortController();
    const blocked = writeBytes(stuck, 'hello', stop.signal);
    stop.abort();
    expect(await blocked).toBe(false);

    const closing = new Writable({ highWaterMark: 2, write: () => undefined });
    const gone = writeBytes(closing, 'hello', new AbortController().signal);
    closing.destroy();
    expect(await gone).toBe(false);
  });

  it('abortableDelay resolves at once when aborted, before or during the wait', async () => {
    const before = new AbortController();
    before.abort();
    await abortableDelay(60_000, before.signal);
    const during = new AbortController();
    const waiting = abortableDelay(60_000, during.signal);
    during.abort();
    await waiting;
    await abortableDelay(1, new AbortController().signal);
  });
});
