/**
 * The paced load of `bench producer` (drivePaced) over real producers and a real broker: arrivals are one stream
 * dealt round-robin, so each producer's records fall evenly between its neighbours' (the seed's smooth arrivals),
 * and every send is acked. No timing assertions: the order of the sends and the counts.
 */
import { describe, expect, it } from 'vitest';
import { drivePaced } from '../../src/bench/producer-load.js';
import type { Producer } from '../../src/client/producer/producer.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker({ topics: [{ name: 'paced', partitions: 4 }] });

describe('drivePaced', () => {
  it('deals one evenly spaced stream round-robin over the producers; every send is acked', async () => {
    await env.start();
    const order: number[] = [];
    const producers = await Promise.all(
      [0, 1, 2].map(async (i) => {
        const p: Producer = env.track((await env.client()).accumulator({ lingerMs: 5 }));
        const send = p.send.bind(p);
        p.send = (topic, record, ...rest) => {
          order.push(i);
          return send(topic, record, ...rest);
        };
        return p;
      }),
    );
    const records = Array.from({ length: 16 }, (_, i) => ({ key: `k${i}`, value: `v${i}` }));
    const figures = await drivePaced(
      producers,
      { topic: 'paced', records, until: performance.now() + 300, recordCharge: 64, timeSettles: false },
      1_000,
    );
    expect(order.length).toBeGreaterThan(6);
    // Strict rotation: producer i's k-th record comes after producer i−1's k-th and before its own (k+1)-th.
    expect(order).toEqual(order.map((_, j) => j % 3));
    const sent = figures.map((f) => f.sent);
    expect(Math.max(...sent) - Math.min(...sent)).toBeLessThanOrEqual(1);
    expect(figures.map((f) => f.acked)).toEqual(sent);
    expect(figures.every((f) => f.failed + f.uncertain === 0)).toBe(true);
    expect(figures.reduce((n, f) => n + f.burstRecords, 0)).toBe(order.length);
  });
});
