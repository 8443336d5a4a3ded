/**
 * bench batch-vs-single, bench throughput and bench producer with --broker kafka://...: the reports say the Kafka
 * backend carried them and count every record produced and fetched back.
 */
import { describe, expect, it } from 'vitest';
import { crater } from '../helpers/cli.js';
import { bootstrap, noKafka } from './helpers.js';

/** `crater bench NAME --broker <the cluster> ARGS --json`: exit 0 and its JSON report. */
async function benchReport(name: string, args: string[]) {
  const r = await crater(['bench', name, '--broker', bootstrap(), ...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe.skipIf(noKafka)('bench on Kafka', () => {
  it('throughput produces and fetches every record through the Kafka backend', async () => {
    const report = await benchReport('throughput', ['-n', '3000', '--batch-size', '500', '--in-flight', '2']);
    expect(report.broker).toMatchObject({ backend: 'kafka', embedded: false, serverName: 'Apache Kafka' });
    expect(report.produce.records).toBe(3000);
    expect(report.produce.requests).toBe(6);
    // At least every record: the bench's produce on Kafka is the plain (non-idempotent) producer, and the library's
    // retry of a Produce request the leader had appended writes that leader's share of the batch again (about 1 run in
    // 8 here), as a Java producer without idempotence does (README, "When one broker is not enough").
    expect(report.fetch.records).toBeGreaterThanOrEqual(3000);
  });

  it('batch-vs-single sends one request per record against one batch', async () => {
    const report = await benchReport('batch-vs-single', ['--records', '50', '--repeat', '1', '--warmup-singles', '50']);
    expect(report.broker.backend).toBe('kafka');
    expect(report.single.frames).toBe(50);
    expect(report.batch.frames).toBe(1);
  });

  it('consumer reads through the backend seam: plain fetch and the batch consumer on Kafka', async () => {
    const report = await benchReport('consumer', ['--records', '2000', '--repeat', '1', '--no-exec']);
    expect(report.broker).toMatchObject({ backend: 'kafka', serverName: 'Apache Kafka' });
    // At least every record (the fill is the plain producer, whose retries may repeat a request: see above).
    expect(report.fetch.records).toBeGreaterThanOrEqual(2000);
    expect(report.batchConsumer.records).toBeGreaterThanOrEqual(2000);
    expect(report.batchConsumer.batches).toBeGreaterThan(0);
  });

  it('share is refused naming the backend (share groups are not wired to Kafka)', async () => {
    const r = await crater(['bench', 'share', '--broker', bootstrap(), '--json']);
    expect(r.code).toBe(1);
    const { error } = JSON.parse(r.stdout);
    expect(error.code).toBe('ERR_UNSUPPORTED');
    expect(error.message).toContain('bench share (not supported by the kafka backend)');
  });

  it('producer drives the accumulator against the cluster and measures hand-made batches beside it', async () => {
    const report = await benchReport('producer', ['--duration', '1s', '--partitions', '3']);
    expect(report.broker).toMatchObject({ backend: 'kafka', serverName: 'Apache Kafka' });
    const measured = report.points[0].measured;
    expect(measured.acked).toBeGreaterThan(0);
    expect(measured.failed + measured.uncertain).toBe(0);
    // The accumulator batched: more records than requests.
    expect(measured.batchRecords.avg).toBeGreaterThan(1);
    expect(report.baseline.records).toBeGreaterThan(0);
  });
});
