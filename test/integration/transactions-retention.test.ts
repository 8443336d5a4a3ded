/**
 * The abort index after retention (semantics.md §10): once the cleaner has deleted the segments holding an aborted
 * transaction, its entry is pruned from txn-aborts.json (it could only ever match offsets no longer in the log),
 * and an entry for a range still retained stays.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/consumer-harness.js';
import { fastRetention, useTempBroker } from '../helpers/temp-broker.js';

const HOUR = 3_600_000;
let fakeNow = Date.now();
const env = useTempBroker();

const big = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ key: `${prefix}${i}`, value: 'x'.repeat(200) }));

describe('abort index pruning', () => {
  it('drops entries below the log start after a cleaner run and keeps the rest', async () => {
    fakeNow = Date.now();
    const broker = await env.start({
      topics: [{ name: 'events', partitions: 1 }],
      ...fastRetention(() => BigInt(fakeNow)),
    });
    const client = await env.client({ timeoutMs: 5_000 });
    const producer = client.producer({ producerName: 'old' });
    await producer.beginTransaction();
    await producer.sendBatch('events', big('old', 5));
    await producer.abortTransaction();
    await client.produceBatch('events', big('fill', 20));
    // The second transaction ends with its marker, the last record, in the active segment, which retention keeps.
    await producer.beginTransaction();
    await producer.sendBatch('events', big('recent', 2));
    await producer.abortTransaction();
    expect(broker.transactions.abortEntries).toHaveLength(2);
    const log = broker.topics.requireTopic('events').partitions[0]!;

    fakeNow += 2 * HOUR;
    await eventually(() => log.logStartOffset > 0n && broker.transactions.abortEntries.length === 1);
    const [kept] = broker.transactions.abortEntries;
    expect(kept!.upto).toBeGreaterThan(log.logStartOffset);
    const file = JSON.parse(await fs.readFile(path.join(env.dataDir, 'txn-aborts.json'), 'utf8')) as {
      entries: Array<{ first: number }>;
    };
    expect(file.entries.map((e) => BigInt(e.first))).toEqual([kept!.first]);
  });
});
