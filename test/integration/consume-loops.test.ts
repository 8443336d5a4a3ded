/**
 * The loops behind `crater consume` (cli/consuming.ts) against a real broker: --max-records hands back what the
 * FETCH returned past the count, -e stops at the start-time end, a closed output hands back what may sit in the
 * pipe (at-least-once: the next reader misses nothing), -p drops other partitions, and idle/abort/count stop both
 * pull and push mode with the cause they report.
 */
import { describe, expect, it } from 'vitest';
import { type BatchEmit, type ConsumeLoopOptions, consumePull, consumePush } from '../../src/cli/consuming.js';
import { partitionAt, recordAt } from '../../src/cli/fetched-rows.js';
import type { Client } from '../../src/client/client.js';
import type { FetchedRecord } from '../../src/client/index.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker();

const base = (over: Partial<ConsumeLoopOptions> = {}): ConsumeLoopOptions => ({
  topics: ['t'],
  group: 'g',
  exitAtEnd: false,
  timeoutMs: 5_000,
  ...over,
});

function collector(limit = Infinity) {
  const seen: string[] = [];
  const emit = (r: FetchedRecord): Promise<number | undefined> => {
    if (seen.length >= limit) return Promise.resolve(undefined);
    seen.push(`${r.partition}:${r.value.toString()}`);
    return Promise.resolve(r.value.length + 1);
  };
  return { seen, emit };
}

async function seeded(perPartition: number, partitions = 1): Promise<Client> {
  await env.start();
  const client = await env.client();
  await client.createTopic('t', partitions);
  for (let p = 1; p <= partitions && perPartition > 0; p++)
    await client.produceBatch(
      't',
      Array.from({ length: perPartition }, (_, i) => ({ value: `r${i}` })),
      { partition: p },
    );
  return client;
}

const never = new AbortController().signal;

/** A --json-like printer (one write per FETCH, FetchTables asked for); `after(n)` runs once n FETCHes were printed. */
function batchCollector(printed: number, after?: (n: number) => void) {
  const seen: string[] = [];
  let calls = 0;
  const output: BatchEmit = {
    batch: (rows) => {
      if (calls >= printed) return Promise.resolve(undefined);
      calls += 1;
      for (let i = 0; i < rows.length; i++) seen.push(`${partitionAt(rows, i)}:${recordAt(rows, i).value.toString()}`);
      after?.(calls);
      return Promise.resolve(Array.from({ length: rows.length }, () => 10));
    },
  };
  return { seen, output };
}

describe('consumePull', () => {
  it('--max-records stops at the count and hands back the rest of the FETCH; -e reads to the end', async () => {
    await seeded(5);
    const first = collector();
    expect(await consumePull(await env.client(), base({ maxRecords: 2 }), first.emit, never)).toEqual({
      count: 2,
      cause: 'count',
    });
    expect(first.seen).toEqual(['1:r0', '1:r1']);
    const rest = collector();
    expect(await consumePull(await env.client(), base({ exitAtEnd: true }), rest.emit, never)).toEqual({
      count: 3,
      cause: 'end',
    });
    expect(rest.seen).toEqual(['1:r2', '1:r3', '1:r4']);
    // At the end already: -e returns at once with nothing.
    expect(await consumePull(await env.client(), base({ exitAtEnd: true }), collector().emit, never)).toEqual({
      count: 0,
      cause: 'end',
    });
  });

  it('a closed output hands back everything that may sit in the pipe: the next reader misses nothing', async () => {
    await seeded(5);
    const gone = collector(2);
    const first = await env.client();
    expect(await consumePull(first, base(), gone.emit, never)).toEqual({ count: 2, cause: 'output-closed' });
    // COMMIT leaves the group's in-memory cursor alone (as on MoonMQ): the hand-back counts once the reader's
    // connection has closed, which is what the CLI's exit does.
    await first.close();
    const next = collector();
    await consumePull(await env.client(), base({ exitAtEnd: true }), next.emit, never);
    // The two written records ended well within the pipe window, so they are read again with the rest.
    expect(next.seen).toEqual(['1:r0', '1:r1', '1:r2', '1:r3', '1:r4']);
  });

  it('hands back what the FETCH ahead brought when the output closes or the run is interrupted', async () => {
    await seeded(5_000);
    const all = Array.from({ length: 5_000 }, (_, i) => `1:r${i}`);
    // Interrupted while the first FETCH is printed: the one ahead of it (already committed past by the broker) goes
    // back, so the next reader starts exactly after what was printed.
    const stop = new AbortController();
    const first = await env.client();
    const interrupted = batchCollector(Infinity, () => stop.abort());
    expect(await consumePull(first, base(), interrupted.output, stop.signal)).toEqual({
      count: 2_000,
      cause: 'interrupted',
    });
    await first.close();
    expect(interrupted.seen).toEqual(all.slice(0, 2_000));
    // The output closes at the second FETCH: that one, the one ahead of it and the pipe window go back.
    const second = await env.client();
    const closed = batchCollector(1);
    expect(await consumePull(second, base(), closed.output, never)).toEqual({ count: 2_000, cause: 'output-closed' });
    await second.close();
    const rest = batchCollector(Infinity);
    expect(await consumePull(await env.client(), base({ exitAtEnd: true }), rest.output, never)).toMatchObject({
      cause: 'end',
    });
    const seen = [...closed.seen, ...rest.seen];
    expect(all.slice(2_000).filter((r) => !seen.includes(r))).toEqual([]);
    expect(rest.seen.at(-1)).toBe('1:r4999');
    expect(rest.seen.length).toBeGreaterThanOrEqual(1_000);
  });

  it('-p prints only the chosen partitions, and -e ignores the others', async () => {
    await seeded(2, 2);
    const c = collector();
    expect(
      await consumePull(await env.client(), base({ group: 'once', partitions: [2], exitAtEnd: true }), c.emit, never),
    ).toEqual({ count: 2, cause: 'end' });
    expect(c.seen).toEqual(['2:r0', '2:r1']);
  });

  it('-e asks DESCRIBE_GROUP only near the end, not after every FETCH, and reads each record once', async () => {
    await seeded(3_000, 4);
    const client = await env.client();
    const describe = client.describeGroup.bind(client);
    let asked = 0;
    client.describeGroup = (group) => {
      asked += 1;
      return describe(group);
    };
    const fetch = client.fetch.bind(client);
    let fetches = 0;
    client.fetch = (...args) => {
      fetches += 1;
      return fetch(...args);
    };
    const c = collector();
    expect(await consumePull(client, base({ exitAtEnd: true }), c.emit, never)).toEqual({
      count: 12_000,
      cause: 'end',
    });
    expect(new Set(c.seen).size).toBe(12_000);
    // 12,000 records at 2,000 per FETCH: six FETCHes (a seventh, empty, when the last one stopped just short).
    expect(fetches).toBeGreaterThanOrEqual(6);
    expect(asked).toBeLessThanOrEqual(2);
  });

  it('-e stops at the start-time ends while records keep arriving past them', async () => {
    await seeded(2_500, 2);
    const client = await env.client();
    const writer = await env.client();
    const listOffsets = client.listOffsets.bind(client);
    // Right after the ends are read, more records land in both partitions: -e still stops (it reads at least to the
    // start-time ends; records past them may be printed, as a FETCH that crosses an end returns them).
    client.listOffsets = async (...args) => {
      const ends = await listOffsets(...args);
      for (const partition of [1, 2])
        await writer.produceBatch('t', [{ value: 'late-1' }, { value: 'late-2' }], { partition });
      return ends;
    };
    const c = collector();
    const outcome = await consumePull(client, base({ exitAtEnd: true }), c.emit, never);
    expect(outcome.cause).toBe('end');
    const seen = new Set(c.seen);
    const missing = [1, 2]
      .flatMap((p) => Array.from({ length: 2_500 }, (_, i) => `${p}:r${i}`))
      .filter((r) => !seen.has(r));
    expect(missing).toEqual([]);
  });

  it('stops when idle, and on abort with the cause the abort names', async () => {
    await seeded(0);
    expect(await consumePull(await env.client(), base({ idleTimeoutMs: 150 }), collector().emit, never)).toEqual({
      count: 0,
      cause: 'idle',
    });
    const closed = new AbortController();
    closed.abort('stdout-closed');
    expect(await consumePull(await env.client(), base(), collector().emit, closed.signal)).toEqual({
      count: 0,
      cause: 'output-closed',
    });
    const interrupted = new AbortController();
    const run = consumePull(await env.client(), base(), collector().emit, interrupted.signal);
    interrupted.abort();
    expect(await run).toEqual({ count: 0, cause: 'interrupted' });
  });
});

describe('consumePush', () => {
  it('stops at the count, when idle, when the output closes and on abort', async () => {
    await seeded(4);
    const c = collector();
    expect(await consumePush(await env.client(), base({ maxRecords: 3 }), c.emit, never)).toEqual({
      count: 3,
      cause: 'count',
    });
    expect(c.seen).toEqual(['1:r0', '1:r1', '1:r2']);
    expect(await consumePush(await env.client(), base({ group: 'h' }), collector(1).emit, never)).toEqual({
      count: 1,
      cause: 'output-closed',
    });
    expect(
      await consumePush(await env.client(), base({ group: 'i', idleTimeoutMs: 300 }), collector().emit, never),
    ).toEqual({ count: 4, cause: 'idle' });
    const abort = new AbortController();
    abort.abort();
    expect(await consumePush(await env.client(), base({ group: 'j' }), collector().emit, abort.signal)).toEqual({
      count: 0,
      cause: 'interrupted',
    });
  });
});
