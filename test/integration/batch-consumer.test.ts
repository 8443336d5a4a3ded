import { describe, expect, it } from 'vitest';
import type { BatchConsumerEvent, Client, MessageBatch } from '../../src/client/index.js';
import { ManualClock, until } from '../helpers/manual-clock.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker({ topics: [{ name: 'scans', partitions: 1 }, { name: 'two', partitions: 2 }] });

async function setup(): Promise<Client> {
  await env.start();
  return env.client();
}

const fill = (c: Client, topic: string, n: number, prefix = 'v') =>
  c.produceBatch(topic, Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `${prefix}${i}` })));

async function committed(c: Client, group: string, topic: string): Promise<Map<number, bigint>> {
  const d = await c.describeGroup(group).catch(() => ({ offsets: [] as Array<{ topic: string; partition: number; offset: bigint }> }));
  return new Map(d.offsets.filter((o) => o.topic === topic).map((o) => [o.partition, o.offset]));
}

async function ends(c: Client, topic: string): Promise<Map<number, bigint>> {
  return new Map((await c.listOffsets(topic)).partitions.map((p) => [p.partition, p.latest]));
}

describe('batch consumer: accumulation', () => {
  it('dispatches full batches at maxSize at once and the remainder only when timeoutMs has passed', async () => {
    const c = await setup();
    await fill(c, 'scans', 25);
    const clock = new ClockWithLog();
    const sizes: number[] = [];
    const bc = c.batchConsumer({ group: 'sorter', topics: 'scans', maxSize: 10, timeoutMs: 1_000, clock, onEvent: clock.log });
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
  });
});

class ClockWithLog extends ManualClock {
  readonly events: BatchConsumerEvent[] = [];
  readonly log = (e: BatchConsumerEvent): void => {
    this.events.push(e);
  };
}
