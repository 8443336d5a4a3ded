import net from 'node:net';
import { describe, expect, it } from 'vitest';
import type { BrokerEvent } from '../../src/broker/broker.js';
import { type Client, connect } from '../../src/client/client.js';
import { FetchRequest } from '../../src/protocol/messages/fetch.js';
import { FetchFlag } from '../../src/protocol/opcodes.js';
import { eventually } from '../helpers/consumer-harness.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker({ topics: [{ name: 'big', partitions: 1 }] });

describe('send deadline (wire.md §1)', () => {
  it('a client that never reads is closed once its unsent replies have not drained for sendTimeoutMs', async () => {
    // A pending-bytes cap far above what the test queues, so only the deadline can close the connection.
    const b = await env.start({ sendTimeoutMs: 300, maxPendingSendBytes: 1 << 30 });
    const value = Buffer.alloc(512 * 1024, 7);
    const log = b.topics.requireTopic('big').partitions[0]!;
    const appended = log.append(Array.from({ length: 8 }, (_, i) => ({ attrs: 0, timestamp: 1n, key: Buffer.from(`k${i}`), value })));
    expect(appended.error).toBeUndefined();
    await log.sync();
    const events: BrokerEvent[] = [];
    b.on((e) => events.push(e));
    const c = await env.raw();
    c.socket.pause();
    // Every group starts from the beginning, so each FETCH queues the full 4 MiB again: far past the socket buffers.
    for (let g = 0; g < 24; g++) c.send(FetchRequest, { topic: 'big', group: `g${g}`, maxRecords: 8, flags: FetchFlag.BATCHED });
    await eventually(() => events.some((e) => e.type === 'connection-closed'), 10_000);
    const closed = events.find((e) => e.type === 'connection-closed');
    expect(closed).toMatchObject({ reason: 'send-deadline', connections: 0 });
  });
});

describe('broker.stop with idle clients', () => {
  it('resolves promptly with idle clients of three kinds connected (raw, crater Client, a peer that never closes its side)', async () => {
    const b = await env.start();
    const raw = await env.raw();
    const crater: Client = await connect({ broker: `127.0.0.1:${b.address.port}`, username: 'u', password: 'p' });
    // allowHalfOpen: this peer answers the broker's FIN with nothing, as a stuck or foreign client might.
    const halfOpen = net.connect({ port: b.address.port, host: '127.0.0.1', allowHalfOpen: true });
    const halfOpenClosed = new Promise<void>((resolve) => halfOpen.once('close', () => resolve()));
    halfOpen.on('error', () => undefined);
    try {
      await eventually(() => b.connectionCount === 3);
      let stopped = false;
      const stopping = b.stop().then(() => (stopped = true));
      let timer: NodeJS.Timeout | undefined;
      const tooSlow = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`stop still pending after 1 s (stopped=${stopped})`)), 1_000);
      });
      try {
        await Promise.race([stopping, tooSlow]);
      } finally {
        clearTimeout(timer);
      }
      expect(stopped).toBe(true);
      expect(b.connectionCount).toBe(0);
      await raw.waitClosed(2_000);
      expect(raw.closed).toBe(true);
    } finally {
      await crater.close();
      halfOpen.destroy();
      await halfOpenClosed;
    }
  });
});
