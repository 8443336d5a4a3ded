/**
 * Thousands of mutated valid frames (seeded, so a failure reproduces) over many connections: the broker must answer
 * or close each connection, never crash, and still serve a fresh client afterwards. What the mutations write to the
 * topic is whatever decodes, but whatever was written must be whole: after a clean stop the data dir passes the
 * read-only inspector (`segments inspect --verify`) with no finding.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { encodeFrame } from '../../src/protocol/message.js';
import { AuthRequest } from '../../src/protocol/messages/auth.js';
import { DescribeTopicRequest } from '../../src/protocol/messages/describe-topic.js';
import { HelloRequest } from '../../src/protocol/messages/hello.js';
import { ListOffsetsRequest } from '../../src/protocol/messages/list-offsets.js';
import { ProduceBatchRequest } from '../../src/protocol/messages/produce-batch.js';
import { ProduceRequest } from '../../src/protocol/messages/produce.js';
import { Op } from '../../src/protocol/opcodes.js';
import { inspectPaths } from '../../src/storage/inspect/inspect.js';
import { prng } from '../helpers/prng.js';
import { RawClient } from '../helpers/raw-client.js';
import { type TempBroker, startTempBroker } from '../helpers/temp-broker.js';

let env: TempBroker | undefined;

afterEach(async () => {
  await env?.cleanup();
  env = undefined;
});

const correl = Buffer.alloc(16, 7);
const templates = [
  encodeFrame(HelloRequest, correl, { version: 1 }),
  encodeFrame(AuthRequest, correl, { username: 'u', password: 'p' }),
  encodeFrame(ProduceRequest, correl, { codec: 0, topic: 'fuzz', key: Buffer.from('k'), value: Buffer.from('value') }),
  encodeFrame(ProduceBatchRequest, correl, {
    flags: 0,
    codec: 1,
    topic: 'fuzz',
    records: [
      { key: Buffer.from('a'), value: Buffer.from('b') },
      { key: Buffer.alloc(0), value: Buffer.from('c') },
    ],
  }),
  encodeFrame(DescribeTopicRequest, correl, { name: 'fuzz' }),
  encodeFrame(ListOffsetsRequest, correl, { topic: 'fuzz', mode: 1, timestampMs: 0n }),
];

function mutate(frame: Buffer, next: () => number): Buffer {
  const out = Buffer.from(frame);
  const kind = Math.floor(next() * 4);
  if (kind === 0) {
    for (let i = 0; i < 1 + next() * 4; i++) out[Math.floor(next() * out.length)] = Math.floor(next() * 256);
    return out;
  }
  if (kind === 1) return out.subarray(0, Math.floor(next() * out.length));
  if (kind === 2) {
    const at = 21 + Math.floor(next() * (out.length - 21));
    out.writeUInt32BE(Math.floor(next() * 0xffffffff), Math.min(at, out.length - 4));
    return out;
  }
  const extra = Buffer.alloc(Math.floor(next() * 16), Math.floor(next() * 256));
  const grown = Buffer.concat([out, extra]);
  grown.writeUInt32BE(grown.length - 4, 0);
  return grown;
}

describe('broker fuzz', () => {
  it('survives 5,000 mutated frames and answers a fresh client afterwards', async () => {
    env = await startTempBroker({ topics: [{ name: 'fuzz', partitions: 3 }], acks: 'none' });
    const next = prng(0xc0ffee);
    let sent = 0;
    for (let conn = 0; conn < 50; conn++) {
      const c = await RawClient.connect(env.port);
      const parts: Buffer[] = [templates[0]!, templates[1]!];
      for (let i = 0; i < 100; i++) {
        const t = templates[Math.floor(next() * templates.length)]!;
        parts.push(next() < 0.7 ? mutate(t, next) : t);
        sent++;
      }
      c.writeRaw(Buffer.concat(parts));
      c.sendFrame(Op.GOODBYE);
      // A mutated length may leave the broker waiting for bytes that never come: the half-close ends that.
      c.socket.end();
      await c.waitClosed(15_000);
      await c.close();
    }
    expect(sent).toBe(5_000);
    const fresh = await RawClient.authenticated(env.port);
    const reply = await fresh.request(ProduceRequest, {
      codec: 0,
      topic: 'fuzz',
      key: Buffer.from('k'),
      value: Buffer.from('v'),
    });
    expect(reply.op).toBe(Op.PRODUCE_ACK);
    await fresh.close();

    await env.broker.stop();
    const report = inspectPaths([env.dataDir]);
    expect(report.findings).toEqual([]);
    expect(report.summary.records).toBeGreaterThan(0);
  }, 60_000);
});
