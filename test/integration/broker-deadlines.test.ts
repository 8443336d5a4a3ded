import net from 'node:net';
import { describe, expect, it } from 'vitest';
import type { BrokerEvent } from '../../src/broker/broker.js';
import { type Client, connect } from '../../src/client/client.js';
import { FetchRequest } from '../../src/protocol/messages/fetch.js';
import { FetchFlag } from '../../src/protocol/opcodes.js';
import { consumerRuntimeOf } from '../../src/broker/consumer/index.js';
import { silentLogger } from '../../src/broker/core.js';
import { eventually } from '../helpers/eventually.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker({ topics: [{ name: 'big', partitions: 1 }] });
/** FETCHes of 8 records of 512 KiB each (4 MiB a reply): 24 MiB in all, far past the loopback socket buffers. */
const FETCHES = 6;
const RECORDS_PER_FETCH = 8;
const VALUE_BYTES = 512 * 1024;

describe('send deadline (wire.md §1)', () => {
  it('a client that never reads is closed once its unsent replies have not drained for sendTimeoutMs', async () => {
    // A pending-bytes cap far above what the test queues, so only the deadline can close the connection.
    const warnings: Record<string, unknown>[] = [];
    // The group's in-memory cursor when the deadline fired, read before the teardown rewinds it.
    const cursorAtDeadline: (bigint | undefined)[] = [];
    let readCursor = (): bigint | undefined => undefined;
    const logger = {
      ...silentLogger,
      warn: (_: string, fields?: Record<string, unknown>) => {
        warnings.push(fields ?? {});
        cursorAtDeadline.push(readCursor());
      },
    };
    const b = await env.start({ sendTimeoutMs: 300, maxPendingSendBytes: 1 << 30, logger });
    const rt = consumerRuntimeOf(b);
    readCursor = () => rt.cursors.get('g', 'big', 1);
    const value = Buffer.alloc(VALUE_BYTES, 7);
    const log = b.topics.requireTopic('big').partitions[0]!;
    const records = Array.from({ length: FETCHES * RECORDS_PER_FETCH }, (_, i) => ({
      attrs: 0,
      timestamp: 1n,
      key: Buffer.from(`k${i}`),
      value,
    }));
    expect(log.append(records).error).toBeUndefined();
    await log.sync();
    const events: BrokerEvent[] = [];
    b.on((e) => events.push(e));
    const c = await env.raw();
    c.socket.pause();
    // One connection is bound to one group, and each FETCH resumes where the last one left off.
    for (let i = 0; i < FETCHES; i++)
      c.send(FetchRequest, { topic: 'big', group: 'g', maxRecords: RECORDS_PER_FETCH, flags: FetchFlag.BATCHED });
    await eventually(() => events.some((e) => e.type === 'connection-closed'), 10_000);
    const closed = events.find((e) => e.type === 'connection-closed');
    expect(closed).toMatchObject({ reason: 'send-deadline', connections: 0 });
    expect(warnings).toHaveLength(1);
    // The cursor moves only once a FETCH's records were queued for the socket, by at most maxRecords a FETCH: at
    // logEndOffset (past all FETCHES × RECORDS_PER_FETCH records) when the deadline fired, every FETCH had queued a
    // full reply of records (an ERROR reply, a short one or a FETCH not yet served would leave it short).
    expect(cursorAtDeadline).toEqual([log.logEndOffset]);
    // More than one FETCH's worth of those replies was still unsent at the deadline, so the deadline, not a full
    // socket buffer, is what closed the connection; and no more than all of them was.
    const pendingBytes = warnings[0]!.pendingBytes as number;
    const replyBytes = RECORDS_PER_FETCH * VALUE_BYTES;
    expect(pendingBytes).toBeGreaterThan(replyBytes);
    expect(pendingBytes).toBeLessThan(FETCHES * replyBytes * 1.01);
    // Records whose reply never reached the kernel are not committed (a FETCH commits once its reply left): once the
    // pending commits settle, the group's committed offset on the topic's one partition (1) is short of logEndOffset.
    await rt.commitsSettled('g');
    expect(rt.offsets.get('g', 'big', 1) ?? 0n).toBeLessThan(log.logEndOffset);
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
