import { describe, expect, it } from 'vitest';
import {
  type BatchConsumerEvent,
  type Client,
  DlqHeader,
  type FetchedRecord,
  type ItemResult,
  type MessageBatch,
} from '../../src/client/index.js';
import { UsageError } from '../../src/errors.js';
import { committed, ends, fill } from '../helpers/batch-setup.js';
import { ManualClock, until } from '../helpers/sleep-clock.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker({
  topics: [
    { name: 'scans', partitions: 1 },
    { name: 'two', partitions: 2 },
  ],
});

async function setup(): Promise<Client> {
  await env.start();
  return env.client();
}

describe('batch consumer: accumulation', () => {
  it('dispatches full batches at maxSize at once and the remainder only when timeoutMs has passed', async () => {
    const c = await setup();
    await fill(c, 'scans', 25);
    const clock = new ClockWithLog();
    const sizes: number[] = [];
    const bc = c.batchConsumer({
      group: 'sorter',
      topics: 'scans',
      maxSize: 10,
      timeoutMs: 1_000,
      clock,
      onEvent: clock.log,
    });
    const run = bc.run((batch: MessageBatch<Buffer>) => {
      sizes.push(batch.count);
    });
    await until(() => clock.events.find((e) => e.type === 'accumulating' && e.size === 5), 'the partial batch to wait');
    expect(sizes).toEqual([10, 10]);
    clock.advance(999);
    expect(sizes).toEqual([10, 10]);
    clock.advance(1);
    await until(() => sizes.length === 3, 'the partial batch');
    expect(sizes).toEqual([10, 10, 5]);
    await bc.stop();
    await run;
    expect(await committed(c, 'sorter', 'scans')).toEqual(await ends(c, 'scans'));
    // The private cursor group is gone once the consumer stopped.
    expect((await c.listGroups()).map((g) => g.groupId)).not.toContain('sorter.crater-cursor');
  });
});

/** Every record on `topic` (read with headers by a fresh group). */
async function readAll(topic: string): Promise<FetchedRecord[]> {
  const reader = await env.client();
  return (await reader.fetch(topic, `reader-${Math.random()}`, { maxRecords: 10_000, headers: true })).records;
}

const header = (r: FetchedRecord, name: string) => r.headers?.find((h) => h.name === name)?.value.toString();

describe('batch consumer: per-item filters and validation', () => {
  it('drops filtered items silently, dead-letters invalid ones, and commits past both', async () => {
    const c = await setup();
    const values = ['ok-1', 'test-2', 'bad-3', 'ok-4', 'test-5', 'ok-6'];
    await c.produceBatch(
      'scans',
      values.map((v, i) => ({ key: `k${i}`, value: v, headers: [{ name: 'origin', value: Buffer.from('belt') }] })),
    );
    const seen: string[] = [];
    const bc = c.batchConsumer<string>({
      group: 'sorter',
      topics: ['scans'],
      maxSize: 6,
      deserialize: (v) => v.toString(),
      filters: [(item) => !item.message.startsWith('test-')],
      validate: (item) => (item.message.startsWith('bad-') ? 'region missing' : true),
    });
    const run = bc.run((batch) => {
      seen.push(...batch.items.map((i) => i.message));
    });
    await until(() => seen.length === 3, 'the reduced batch');
    await bc.stop();
    await run;
    expect(seen).toEqual(['ok-1', 'ok-4', 'ok-6']);
    expect(bc.stats).toMatchObject({ filtered: 2, deadLettered: 1, processed: 3 });
    const dlq = await readAll('scans.dlq');
    expect(dlq.map((r) => [r.key.toString(), r.value.toString()])).toEqual([['k2', 'bad-3']]);
    expect(header(dlq[0]!, 'origin')).toBe('belt');
    expect(header(dlq[0]!, DlqHeader.error)).toBe('region missing');
    expect(header(dlq[0]!, DlqHeader.attempts)).toBe('0');
    expect(await committed(c, 'sorter', 'scans')).toEqual(await ends(c, 'scans'));
  });

  it('does not call the handler when every item of a batch is filtered out, and still advances the offsets', async () => {
    const c = await setup();
    await fill(c, 'scans', 4, 'test-');
    let calls = 0;
    const bc = c.batchConsumer({
      group: 'sorter',
      topics: 'scans',
      maxSize: 4,
      filters: [(i) => !i.transport.value.toString().startsWith('test-')],
    });
    const run = bc.run(() => {
      calls++;
    });
    await until(() => bc.stats.filtered === 4, 'the filtered batch');
    await bc.stop();
    await run;
    expect(calls).toBe(0);
    expect(await committed(c, 'sorter', 'scans')).toEqual(await ends(c, 'scans'));
  });
});

describe('batch consumer: retry and dead letters', () => {
  it('retries a throwing batch with the backoff, then dead-letters each item with diagnostic headers', async () => {
    const c = await setup();
    await fill(c, 'scans', 3);
    const clock = new ClockWithLog();
    const attempts: Array<{ retry: number; delivery: number[] }> = [];
    const bc = c.batchConsumer({
      group: 'sorter',
      topics: 'scans',
      maxSize: 3,
      retry: { attempts: 2, backoff: { type: 'fixed', delayMs: 200 } },
      clock,
      onEvent: clock.log,
    });
    const run = bc.run((batch) => {
      attempts.push({ retry: batch.retryAttempt, delivery: batch.items.map((i) => i.transport.deliveryAttempt) });
      throw new Error('warehouse API down');
    });
    for (const n of [1, 2]) {
      await until(() => clock.events.filter((e) => e.type === 'backoff').length === n, `backoff ${n}`);
      expect(clock.events.filter((e) => e.type === 'backoff').at(-1)).toMatchObject({ retryAttempt: n, delayMs: 200 });
      clock.advance(199);
      expect(attempts).toHaveLength(n);
      clock.advance(1);
    }
    await until(() => bc.stats.deadLettered === 3, 'the dead letters');
    await bc.stop();
    await run;
    expect(attempts).toEqual([
      { retry: 0, delivery: [1, 1, 1] },
      { retry: 1, delivery: [2, 2, 2] },
      { retry: 2, delivery: [3, 3, 3] },
    ]);
    const dlq = await readAll('scans.dlq');
    expect(dlq.map((r) => r.value.toString())).toEqual(['v0', 'v1', 'v2']);
    const first = dlq[0]!;
    expect(first.key.toString()).toBe('k0');
    expect(header(first, DlqHeader.topic)).toBe('scans');
    expect(header(first, DlqHeader.partition)).toBe('1');
    expect(header(first, DlqHeader.offset)).toBe('0');
    expect(header(first, DlqHeader.error)).toBe('warehouse API down');
    expect(header(first, DlqHeader.attempts)).toBe('3');
    expect(header(first, DlqHeader.group)).toBe('sorter');
    expect(Date.parse(header(first, DlqHeader.time)!)).toBeGreaterThan(0);
    expect(await committed(c, 'sorter', 'scans')).toEqual(await ends(c, 'scans'));
  });

  it('per-item outcomes: only the items marked retry come back, dead-letter ones go to the DLQ, the rest commit', async () => {
    const c = await setup();
    await fill(c, 'scans', 5);
    const clock = new ClockWithLog();
    const calls: string[][] = [];
    const bc = c.batchConsumer<string>({
      group: 'sorter',
      topics: 'scans',
      maxSize: 5,
      deserialize: (v) => v.toString(),
      retry: { attempts: 3, backoff: { type: 'exponential', initialMs: 100, maxMs: 1_000, jitter: false } },
      clock,
      onEvent: clock.log,
    });
    const run = bc.run((batch): ItemResult<string>[] => {
      calls.push(batch.items.map((i) => `${i.message}@${i.transport.deliveryAttempt}`));
      if (batch.retryAttempt > 0) return [];
      return [
        { item: batch[1]!, outcome: 'retry', reason: 'locked' },
        { item: batch[3]!, outcome: 'dead-letter', reason: 'unknown barcode' },
      ];
    });
    await until(() => clock.events.find((e) => e.type === 'backoff'), 'the backoff');
    expect(calls).toHaveLength(1);
    clock.advance(99);
    expect(calls).toHaveLength(1);
    clock.advance(1);
    await until(() => calls.length === 2, 'the retry');
    await bc.stop();
    await run;
    expect(calls).toEqual([['v0@1', 'v1@1', 'v2@1', 'v3@1', 'v4@1'], ['v1@2']]);
    const dlq = await readAll('scans.dlq');
    expect(dlq.map((r) => [r.value.toString(), header(r, DlqHeader.error), header(r, DlqHeader.attempts)])).toEqual([
      ['v3', 'unknown barcode', '1'],
    ]);
    expect(bc.stats).toMatchObject({ processed: 4, deadLettered: 1, retries: 1 });
    expect(await committed(c, 'sorter', 'scans')).toEqual(await ends(c, 'scans'));
  });

  it('discards instead of dead-lettering when told to', async () => {
    const c = await setup();
    await fill(c, 'scans', 2);
    const bc = c.batchConsumer({
      group: 'sorter',
      topics: 'scans',
      maxSize: 2,
      retry: { attempts: 0, onExhausted: 'discard' },
    });
    const run = bc.run(() => {
      throw new Error('nope');
    });
    await until(() => bc.stats.discarded === 2, 'the discards');
    await bc.stop();
    await run;
    expect(await c.listTopics()).not.toContain('scans.dlq');
    expect(await committed(c, 'sorter', 'scans')).toEqual(await ends(c, 'scans'));
  });
});

describe('batch consumer: construction and registration rules', () => {
  it('refuses maxSize or timeoutMs <= 0, and a burst below maxSize with the reason', async () => {
    const c = await setup();
    expect(() => c.batchConsumer({ group: 'g', topics: 'scans', maxSize: 0 })).toThrow(
      /maxSize must be an integer > 0/,
    );
    expect(() => c.batchConsumer({ group: 'g', topics: 'scans', timeoutMs: 0 })).toThrow(/timeoutMs must be > 0/);
    expect(() =>
      c.batchConsumer({ group: 'g', topics: 'scans', maxSize: 100, rateLimit: { permitsPerSecond: 500, burst: 50 } }),
    ).toThrow(
      /burst 50 is below maxSize 100: a full batch takes one permit per message, so it would always be rejected/,
    );
    // A refused construction does not hold the group.
    await c.batchConsumer({ group: 'g', topics: 'scans' }).stop();
  });

  it('one batch consumer per group, and no single-record consumer beside it', async () => {
    const c = await setup();
    const bc = c.batchConsumer({ group: 'sorter', topics: 'scans' });
    expect(() => c.batchConsumer({ group: 'sorter', topics: 'scans' })).toThrow(UsageError);
    await expect(c.consumer({ group: 'sorter', topics: 'scans' })).rejects.toThrow(/already has a batch consumer/);
    const single = await c.consumer({ group: 'audit', topics: 'scans' });
    expect(() => c.batchConsumer({ group: 'audit', topics: 'scans' })).toThrow(/already has a single-record consumer/);
    const other = c.batchConsumer({ group: 'billing', topics: 'scans' });
    await other.stop();
    await bc.stop();
    await single.close();
    // Released: the group can be registered again.
    await c.batchConsumer({ group: 'sorter', topics: 'scans' }).stop();
    await c.batchConsumer({ group: 'audit', topics: 'scans' }).stop();
  });
});

class ClockWithLog extends ManualClock {
  readonly events: BatchConsumerEvent[] = [];
  readonly log = (e: BatchConsumerEvent): void => {
    this.events.push(e);
  };
}
