/**
 * Transactions end to end (semantics.md §10) against an in-process broker, through the real client: enrolment of
 * each partition once, commit and abort as seen by read_committed and read_uncommitted readers, the LSO holding
 * read_committed readers while a transaction is open, offsets committed in a transaction, a dropped connection,
 * the abort index across a restart, and the broker's ERR 51 / ERR 52 answers.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Broker, BrokerStartOptions } from '../../src/broker/broker.js';
import { consumerRuntimeOf } from '../../src/broker/consumer/index.js';
import type { Client } from '../../src/client/client.js';
import type { Producer } from '../../src/client/producer/producer.js';
import { BrokerError } from '../../src/errors.js';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { TxnState } from '../../src/storage/txn-state-codec.js';
import { eventually } from '../helpers/eventually.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker({
  topics: [
    { name: 'orders', partitions: 4 },
    { name: 'one', partitions: 1 },
  ],
});
const start = (options: Partial<BrokerStartOptions> = {}): Promise<Broker> => env.start(options);
const client = (): Promise<Client> => env.client({ timeoutMs: 5_000 });

const values = (records: ReadonlyArray<{ value: Buffer }>) => records.map((r) => r.value.toString()).sort();
const batch = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ key: `${prefix}-k${i}`, value: `${prefix}-${i}` }));

/** Everything the group can read now, one FETCH on a fresh connection. */
async function readAll(
  topic: string,
  isolation: 'read_committed' | 'read_uncommitted',
  group = `g-${isolation}-${Math.random()}`,
) {
  const c = await client();
  const { records } = await c.fetch(topic, group, { maxRecords: 10_000, isolation });
  return records;
}

async function txnProducer(name = 'tx'): Promise<Producer> {
  return (await client()).producer({ producerName: name });
}

function stateRecords(b: Broker): number {
  const topic = b.topics.getTopic('__transaction_state');
  if (!topic) return 0;
  return topic.partitions.reduce((n, log) => n + log.read(log.logStartOffset, { maxRecords: 100_000 }).length, 0);
}

describe('enrolment', () => {
  it('enrols each partition a transaction touches exactly once, at the LEO it had before the first append', async () => {
    const b = await start();
    const plain = await client();
    await plain.produceBatch('orders', batch('before', 12));
    const leoBefore = b.topics.requireTopic('orders').partitions.map((log) => log.logEndOffset);
    const producer = await txnProducer();
    await producer.beginTransaction();
    const first = await producer.sendBatch('orders', batch('a', 40));
    expect(first.error).toBeUndefined();
    const touched = new Set(first.acks.map((a) => a.partition));
    const written = stateRecords(b);
    // The same partitions again, in a second batch and a single send: nothing new to enrol, nothing persisted.
    await producer.sendBatch('orders', batch('a', 40));
    await producer.send('orders', { key: 'a-k0', value: 'single' });
    expect(stateRecords(b)).toBe(written);
    const txn = b.transactions.get('tx')!;
    expect(txn.participants.map((p) => `${p.topic}/${p.partition}`).sort()).toEqual(
      [...touched].map((p) => `orders/${p}`).sort(),
    );
    for (const p of txn.participants) expect(p.firstOffset).toBe(leoBefore[p.partition - 1]);
    expect(b.transactions.lso('orders', 1, b.topics.requireTopic('orders').partitions[0]!)).toBe(leoBefore[0]);
    await producer.commitTransaction();
    expect(b.transactions.get('tx')!.state).toBe(TxnState.COMPLETE_COMMIT);
    expect(await readAll('orders', 'read_committed')).toHaveLength(12 + 81);
  });
});

describe('commit and abort', () => {
  it('hides an aborted transaction from read_committed, shows it to read_uncommitted, and never delivers markers', async () => {
    const b = await start();
    const producer = await txnProducer();
    await producer.beginTransaction();
    await producer.sendBatch('orders', batch('aborted', 10));
    await producer.abortTransaction();
    await producer.beginTransaction();
    await producer.sendBatch('orders', batch('committed', 10));
    await producer.commitTransaction();

    const committed = await readAll('orders', 'read_committed');
    expect(values(committed)).toEqual(values(batch('committed', 10).map((r) => ({ value: Buffer.from(r.value) }))));
    const uncommitted = await readAll('orders', 'read_uncommitted');
    expect(uncommitted).toHaveLength(20);
    // 2 markers per touched partition are in the logs, but no reader gets one.
    const stored = b.topics
      .requireTopic('orders')
      .partitions.reduce((n, log) => n + log.read(0n, { maxRecords: 1000 }).length, 0);
    expect(stored).toBeGreaterThan(20);
    expect(uncommitted.every((r) => r.value.length > 0)).toBe(true);

    const index = JSON.parse(await fs.readFile(path.join(b.dataDir, 'txn-aborts.json'), 'utf8')) as {
      entries: Array<Record<string, unknown>>;
    };
    expect(index.entries.length).toBeGreaterThan(0);
    expect(index.entries.every((e) => e.topic === 'orders' && e.pid === Number(producer.identity!.producerId))).toBe(
      true,
    );
    const keys = index.entries.map((e) => [e.partition as number, e.first as number]);
    expect(keys).toEqual([...keys].sort((x, y) => x[0]! - y[0]! || x[1]! - y[1]!));
  });

  it('holds read_committed readers at the LSO while a transaction is open, then releases them on commit', async () => {
    const b = await start();
    const producer = await txnProducer();
    const plain = await client();
    await plain.produce('one', { value: 'before' });
    await producer.beginTransaction();
    await producer.send('one', { value: 'in-txn' });
    await plain.produce('one', { value: 'after' });

    const offsets = await plain.listOffsets('one');
    const [p1] = offsets.partitions;
    expect(p1!.lso).toBe(b.transactions.get('tx')!.participants[0]!.firstOffset);
    expect(p1!.lso).toBeLessThan(p1!.latest);
    const group = 'held';
    const reader = await client();
    expect(values((await reader.fetch('one', group, { isolation: 'read_committed' })).records)).toEqual(['before']);
    expect(values(await readAll('one', 'read_uncommitted'))).toEqual(['after', 'before', 'in-txn']);
    // Polling again changes nothing while the transaction is open.
    expect((await reader.fetch('one', group, { isolation: 'read_committed' })).records).toHaveLength(0);

    await producer.commitTransaction();
    expect(values((await reader.fetch('one', group, { isolation: 'read_committed' })).records)).toEqual([
      'after',
      'in-txn',
    ]);
    const after = (await plain.listOffsets('one')).partitions[0]!;
    expect(after.lso).toBe(after.latest);
  });

  it('applies offsets sent to a transaction only when it commits', async () => {
    const b = await start();
    const producer = await txnProducer();
    const offsets = () => consumerRuntimeOf(b).offsets.offsetsOf('billing');
    await producer.beginTransaction();
    await producer.sendOffsetsToTransaction('billing', [{ topic: 'orders', partition: 2, offset: 77n }]);
    await producer.send('orders', { value: 'x' });
    expect(offsets()).toEqual([]);
    await producer.abortTransaction();
    expect(offsets()).toEqual([]);

    await producer.beginTransaction();
    await producer.sendOffsetsToTransaction('billing', [{ topic: 'orders', partition: 2, offset: 88n }]);
    await producer.sendOffsetsToTransaction('billing', [
      { topic: 'orders', partition: 2, offset: 99n },
      { topic: 'one', partition: 1, offset: 5n },
    ]);
    expect(offsets()).toEqual([]);
    await producer.commitTransaction();
    expect(offsets()).toEqual([
      { topic: 'one', partition: 1, offset: 5n },
      { topic: 'orders', partition: 2, offset: 99n },
    ]);
  });

  it('aborts the transaction of a connection that drops, releasing the LSO', async () => {
    const b = await start();
    const c = await client();
    const producer = c.producer({ producerName: 'dropper' });
    await producer.beginTransaction();
    await producer.sendBatch('one', batch('lost', 3));
    expect(b.transactions.get('dropper')!.state).toBe(TxnState.ONGOING);
    await producer.close();
    await eventually(() => b.transactions.get('dropper')!.state === TxnState.COMPLETE_ABORT);
    expect(b.transactions.get('dropper')!.state).toBe(TxnState.COMPLETE_ABORT);
    expect(await readAll('one', 'read_committed')).toHaveLength(0);
    expect(await readAll('one', 'read_uncommitted')).toHaveLength(3);
    const p = (await c.listOffsets('one')).partitions[0]!;
    expect(p.lso).toBe(p.latest);
  });

  it('keeps aborted data hidden after a restart, from txn-aborts.json', async () => {
    await start();
    const producer = await txnProducer();
    await producer.beginTransaction();
    await producer.sendBatch('orders', batch('gone', 8));
    await producer.abortTransaction();
    await producer.beginTransaction();
    await producer.sendBatch('orders', batch('kept', 8));
    await producer.commitTransaction();
    const b = await env.restart();
    expect(b.transactions.abortEntries.length).toBeGreaterThan(0);
    expect(values(await readAll('orders', 'read_committed'))).toEqual(
      batch('kept', 8)
        .map((r) => r.value)
        .sort(),
    );
    expect(await readAll('orders', 'read_uncommitted')).toHaveLength(16);
  });
});

describe('push consumers (SUBSCRIBE)', () => {
  it('delivers under read_committed only what committed, in order, and nothing of an aborted transaction', async () => {
    const b = await start();
    // Counts the push loop's polls (the real method still runs): proof that it looked, instead of a sleep.
    const rt = consumerRuntimeOf(b);
    const poll = rt.pollFor.bind(rt);
    let polls = 0;
    rt.pollFor = (...args) => {
      polls++;
      return poll(...args);
    };
    const producer = await txnProducer();
    await producer.beginTransaction();
    await producer.send('one', { value: 'aborted' });
    await producer.abortTransaction();
    await producer.beginTransaction();
    await producer.send('one', { value: 'held' });
    const sub = (await client()).subscribe('one', 'pushed', { isolation: 'read_committed' });
    const seen: string[] = [];
    const reading = (async () => {
      for await (const r of sub) {
        seen.push(r.value.toString());
        if (seen.length === 2) break;
      }
    })();
    const plain = await client();
    await plain.produce('one', { value: 'after' });
    // Nothing passes the open transaction's first offset yet. Three polls after 'after' landed include at least one
    // push_interval sleep after any delivery, in which the subscription would have read it.
    const from = polls;
    await eventually(() => polls >= from + 3);
    expect(seen).toEqual([]);
    await producer.commitTransaction();
    await reading;
    expect(seen).toEqual(['held', 'after']);
  });
});

describe('refusals', () => {
  it('answers ERR 51 for BEGIN_TXN without a durable producer and END_TXN without a transaction', async () => {
    await start();
    const c = await client();
    const ephemeral = c.producer({ idempotent: true });
    await expect(ephemeral.beginTransaction()).rejects.toThrow(/producerName/);
    const producer = c.producer({ producerName: 'p' });
    await expect(producer.commitTransaction()).rejects.toThrow(/no transaction is open/);
    await producer.beginTransaction();
    await expect(producer.beginTransaction()).rejects.toThrow(/already open/);
    await producer.commitTransaction();
    // The client forgets its transaction; a second END_TXN goes to the broker, which confirms the commit (same epoch).
    await expect(producer.abortTransaction()).rejects.toThrow(/no transaction is open/);
  });

  it('aborts a transaction open past the timeout and answers the next transactional request with ERR 52', async () => {
    const b = await start({ transactions: { timeoutMs: 100 } });
    const producer = await txnProducer('slow');
    await producer.beginTransaction();
    await producer.send('one', { value: 'late' });
    await eventually(() => b.transactions.get('slow')!.state === TxnState.COMPLETE_ABORT);
    expect(b.transactions.get('slow')!.state).toBe(TxnState.COMPLETE_ABORT);
    const error = await producer.send('one', { value: 'later' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrokerError);
    expect((error as BrokerError).errorCode).toBe(ErrorCode.TRANSACTION_TIMED_OUT);
    // Nothing of the timed-out transaction reaches read_committed readers, and the producer refuses further sends.
    expect(await readAll('one', 'read_committed')).toHaveLength(0);
    await expect(producer.send('one', { value: 'refused' })).rejects.toThrow(/abort it/);
    await producer.abortTransaction();
    // The connection is usable again: a new transaction commits.
    await producer.beginTransaction();
    await producer.send('one', { value: 'fresh' });
    await producer.commitTransaction();
    expect(values(await readAll('one', 'read_committed'))).toEqual(['fresh']);
  });
});
