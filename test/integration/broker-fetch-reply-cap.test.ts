/**
 * A FETCH whose records pass the per-connection send cap is cut to fit, never answered with a reply over the cap
 * (which closed the connection as pending_send_too_large: 1,000 records of 10 KB made a 10 MB reply against the
 * 16 MiB cap, and two of them, pipelined or not yet drained, passed it). Here the cap is 2 MiB, so a single
 * unbounded reply of 3 MB would already pass it.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodeFrame } from '../../src/protocol/message.js';
import { FetchRequest, RecordBatchReply } from '../../src/protocol/messages/fetch.js';
import { ProduceBatchAckReply, ProduceBatchRequest } from '../../src/protocol/messages/produce-batch.js';
import { FetchFlag, Op } from '../../src/protocol/opcodes.js';
import type { RawClient } from '../helpers/raw-client.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker();
const CAP = 2 * 1_048_576;
const VALUE = 10_000;
const RECORDS = 300;

/** RECORDS records of VALUE bytes in `big`, 90 per PRODUCE_BATCH (each frame under the 1 MiB limit). */
async function fill(c: RawClient): Promise<void> {
  for (let first = 0; first < RECORDS; first += 90) {
    const records = Array.from({ length: Math.min(90, RECORDS - first) }, (_, i) => ({
      key: Buffer.from(`k${first + i}`),
      value: Buffer.alloc(VALUE, (first + i) % 251),
    }));
    const ack = c.decode(
      ProduceBatchAckReply,
      await c.request(ProduceBatchRequest, { flags: 0, codec: 0, topic: 'big', records }),
    );
    expect(ack.acks).toHaveLength(records.length);
  }
}

async function start(): Promise<RawClient> {
  await env.start({ topics: [{ name: 'big', partitions: 1 }], maxPendingSendBytes: CAP });
  const c = await env.raw();
  await fill(c);
  return c;
}

/** The keys of one FETCH's reply, which must end with OK. */
async function keysOf(c: RawClient, correl: Buffer): Promise<string[]> {
  const first = await c.waitFor((f) => f.correl.equals(correl));
  if (first.op === Op.OK) return [];
  expect(first.op).toBe(Op.RECORD_BATCH);
  expect(first.payload.length).toBeLessThanOrEqual(CAP / 2 + 64 * 1024);
  const ok = await c.waitFor((f) => f.correl.equals(correl));
  expect(ok.op).toBe(Op.OK);
  return c.decode(RecordBatchReply, first).records.map((r) => r.key.toString());
}

const allKeys = Array.from({ length: RECORDS }, (_, i) => `k${i}`);

describe('FETCH replies against the per-connection send cap', () => {
  it('a FETCH of 1,000 records of 10 KB is cut to half the cap; the connection stays open and reads on', async () => {
    const c = await start();
    const keys: string[] = [];
    for (let round = 0; keys.length < RECORDS && round < 20; round++) {
      const correl = c.send(FetchRequest, { topic: 'big', group: 'g', maxRecords: 1000, flags: FetchFlag.BATCHED });
      const got = await keysOf(c, correl);
      expect(got.length).toBeGreaterThan(0);
      expect(got.length).toBeLessThan(RECORDS);
      keys.push(...got);
    }
    expect(keys).toEqual(allKeys);
    expect(c.closed).toBe(false);
  });

  it('pipelined FETCHes of large records wait for the unsent bytes instead of passing the cap', async () => {
    const c = await start();
    const correls = Array.from({ length: 8 }, () => randomBytes(16));
    c.writeRaw(
      Buffer.concat(
        correls.map((correl) =>
          encodeFrame(FetchRequest, correl, { topic: 'big', group: 'g', maxRecords: 1000, flags: FetchFlag.BATCHED }),
        ),
      ),
    );
    const keys: string[] = [];
    for (const correl of correls) keys.push(...(await keysOf(c, correl)));
    expect(keys).toEqual(allKeys);
    expect(c.closed).toBe(false);
  });
});
