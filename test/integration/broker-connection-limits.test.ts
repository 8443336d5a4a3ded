/**
 * Issue 11 item 4 (semantics.md §12): connection limits in total and per IP, refused with ERR 6 and the zero correl;
 * a slot frees when a connection closes; a broker-wide cap on unsent reply bytes sheds the connection holding the
 * most while a reading client goes on.
 */
import { describe, expect, it } from 'vitest';
import { BrokerDefaults } from '../../src/broker/config.js';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { encodeFrame } from '../../src/protocol/message.js';
import { FetchRequest, RecordBatchReply } from '../../src/protocol/messages/fetch.js';
import { ListTopicsRequest } from '../../src/protocol/messages/list-topics.js';
import { ProduceBatchAckReply, ProduceBatchRequest } from '../../src/protocol/messages/produce-batch.js';
import { FetchFlag, Op } from '../../src/protocol/opcodes.js';
import { RawClient } from '../helpers/raw-client.js';
import { useTempBroker } from '../helpers/temp-broker.js';
import { eventually } from '../helpers/eventually.js';

const env = useTempBroker();

function until(what: string, cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  return eventually(cond, { what, timeoutMs, intervalMs: 5 });
}

/** Connects and expects the broker's refusal: ERROR 6 with the zero correl, then the close. */
async function expectRefused(port: number, localAddress?: string): Promise<string> {
  const c = env.track(await connectFrom(port, localAddress));
  const frame = await c.waitFor((f) => f.op === Op.ERROR);
  expect(frame.correl.equals(Buffer.alloc(16))).toBe(true);
  const err = c.error(frame)!;
  expect(err.code).toBe(ErrorCode.RATE_LIMITED);
  await c.waitClosed();
  return err.message;
}

function connectFrom(port: number, localAddress?: string): Promise<RawClient> {
  return localAddress === undefined ? RawClient.connect(port) : RawClient.connectFrom(port, localAddress);
}

describe('connection limits', () => {
  it('default to 960 in total and 32 per IP', () => {
    expect(BrokerDefaults.maxConnections).toBe(960);
    expect(BrokerDefaults.maxConnectionsPerIp).toBe(32);
  });

  it('the connection past the per-IP limit gets ERR 6; a slot frees when one closes', async () => {
    await env.start({ maxConnectionsPerIp: 2 });
    const port = env.broker.address.port;
    const first = await env.raw();
    await env.raw();
    expect(await expectRefused(port)).toMatch(/too many connections from this address: 2 allowed/);
    expect(env.broker.connectionCount).toBe(2);
    await first.close();
    await until('the closed connection is gone', () => env.broker.connectionCount === 1);
    const third = await env.raw();
    expect((await third.request(ListTopicsRequest, {})).op).toBe(Op.TOPIC_LIST);
  });

  it('the connection past the total limit gets ERR 6, from any address', async () => {
    await env.start({ maxConnections: 2 });
    const port = env.broker.address.port;
    await env.raw();
    await env.raw();
    expect(await expectRefused(port)).toMatch(/too many connections: the broker allows 2/);
    expect(env.broker.connectionCount).toBe(2);
  });

  it('counts each IP on its own (Linux: all of 127/8 is loopback)', async (ctx) => {
    await env.start({ maxConnectionsPerIp: 1 });
    const port = env.broker.address.port;
    await env.raw();
    let other: RawClient;
    try {
      other = env.track(await RawClient.connectFrom(port, '127.0.0.2'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EADDRNOTAVAIL')
        return ctx.skip('127.0.0.2 is not a local address on this system');
      throw err;
    }
    await other.request(ListTopicsRequest, {}).catch(() => undefined);
    expect(other.closed).toBe(false);
    expect(await expectRefused(port, '127.0.0.2')).toMatch(/from this address/);
  });
});

describe('broker-wide send budget', () => {
  it('sheds the connection holding the most unsent bytes; a reading client is served', async () => {
    const cap = 2 * 1_048_576;
    await env.start({
      topics: [{ name: 'big', partitions: 1 }],
      maxPendingSendBytesTotal: cap,
      consumer: { pollBytes: 512 * 1024 },
    });
    const producer = await env.raw();
    const value = Buffer.alloc(60_000, 7);
    for (let i = 0; i < 13; i++) {
      const records = Array.from({ length: 8 }, (_, j) => ({ key: Buffer.from(`k${i * 8 + j}`), value }));
      producer.decode(
        ProduceBatchAckReply,
        await producer.request(ProduceBatchRequest, { flags: 0, codec: 0, topic: 'big', records }),
      );
    }
    const shed: string[] = [];
    env.broker.on((e) => {
      if (e.type === 'connection-closed' && e.reason === 'pending_send_too_large') shed.push(e.remoteAddress);
    });
    // Three peers that never read each ask for the whole 6 MiB topic in 12 pipelined FETCHes.
    const readers = await Promise.all([env.raw(), env.raw(), env.raw()]);
    readers.forEach((r, i) => {
      r.socket.pause();
      const fetch = encodeFrame(FetchRequest, Buffer.alloc(16, i + 1), {
        topic: 'big',
        group: `g${i}`,
        maxRecords: 1000,
        flags: FetchFlag.BATCHED,
      });
      r.writeRaw(Buffer.concat(Array.from({ length: 12 }, () => fetch)));
    });
    await until('a connection is shed', () => shed.length > 0);
    expect(env.broker.pendingSendBytes).toBeLessThanOrEqual(cap);
    const reader = await env.raw();
    const reply = await reader.request(FetchRequest, {
      topic: 'big',
      group: 'well-behaved',
      maxRecords: 4,
      flags: FetchFlag.BATCHED,
    });
    expect(reader.decode(RecordBatchReply, reply).records).toHaveLength(4);
    for (const r of readers) r.socket.resume();
  });
});
