/**
 * `crater produce` through the accumulator, via the built binary against an in-process broker: --batch caps
 * records per batch and --linger holds the rest until the end of input, --json reports keep input order and say
 * acked, --stats prints Kafka's metric names on stderr, and a delivery timeout shorter than linger + timeout is a
 * usage error that sends nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { crater, createTopic, jsonLines, useCliBroker } from '../helpers/cli.js';

const temp = useCliBroker();
let address: string;

beforeAll(async () => {
  ({ address } = temp);
});

const produce = (topic: string, flags: string[], input: string) =>
  crater(['produce', topic, ...flags], input, { broker: address });
const lines = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`).join('\n') + '\n';

describe('crater produce through the accumulator', () => {
  it('--batch caps records per batch, --json keeps input order and says acked, --stats prints the metrics', async () => {
    await createTopic(address, 'tuned', 2);
    const r = await produce(
      'tuned',
      ['--batch', '3', '--linger', '10s', '--max-in-flight', '2', '--json', '--stats'],
      lines(10),
    );
    expect(r.code, r.stderr).toBe(0);
    const reports = jsonLines(r.stdout);
    expect(reports.map((d) => d.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(reports.every((d) => d.outcome === 'acked' && typeof d.offset === 'number')).toBe(true);
    // 3 + 3 + 3 + 1: the last batch left at the end of input, not after its 10 s linger.
    expect(r.stderr).toMatch(/produced 10 of 10 records to tuned in 4 requests/);
    const stats = JSON.parse(r.stderr.trim().split('\n').at(-1)!) as Record<string, number>;
    expect(stats['request-total']).toBe(4);
    expect(stats['batch-records-max']).toBe(3);
    expect(stats['records-per-request-avg']).toBe(2.5);
    expect(stats['buffer-available-bytes']).toBe(stats['buffer-total-bytes']);
  }, 60_000);

  it('--stats without --json prints one aligned line per metric', async () => {
    await createTopic(address, 'tuned-text', 1);
    const r = await produce('tuned-text', ['--stats', '--buffer-bytes', '4MiB', '--batch-bytes', '64KiB'], lines(5));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^record-queue-time-p99\s+\d/m);
    expect(r.stderr).toMatch(/^buffer-total-bytes\s+4194304$/m);
  }, 60_000);

  it('refuses --delivery-timeout below --linger + --timeout as a usage error, sending nothing', async () => {
    await createTopic(address, 'tuned-refused', 1);
    const r = await produce('tuned-refused', ['--delivery-timeout', '5s', '--timeout', '10s'], lines(3));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /deliveryTimeoutMs must be at least lingerMs \+ requestTimeoutMs \(5 \+ 10000 = 10005 ms\), got 5000/,
    );
    expect(temp.broker.topics.requireTopic('tuned-refused').partitions[0]!.read(0n, { maxRecords: 10 })).toEqual([]);
  }, 60_000);
});
