import { afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../../src/client/moonmq/connection.js';
import { FramePool, POOL_MAX_BYTES, POOL_MIN_BYTES } from '../../../src/client/moonmq/frame-pool.js';
import { encodeFrame } from '../../../src/protocol/message.js';
import { ProduceBatchAckReply, ProduceBatchRequest } from '../../../src/protocol/messages/produce-batch.js';
import { closeBoth, startFakeServer, until, type FakeServer } from './fake-server.js';

let server: FakeServer | undefined;
let conn: Connection | undefined;

afterEach(async () => {
  await closeBoth(conn, server);
  conn = undefined;
  server = undefined;
});

describe('FramePool', () => {
  it('keeps large buffers only, up to its byte cap, and hands back the most recent one that fits', () => {
    const pool = new FramePool();
    pool.give(Buffer.alloc(POOL_MIN_BYTES - 1));
    expect(pool.size).toBe(0);
    const a = Buffer.alloc(POOL_MIN_BYTES);
    const b = Buffer.alloc(POOL_MAX_BYTES - POOL_MIN_BYTES);
    pool.give(a);
    pool.give(b);
    pool.give(Buffer.alloc(POOL_MIN_BYTES));
    expect(pool.size).toBe(2);
    expect(pool.take(POOL_MIN_BYTES + 1)).toBe(b);
    expect(pool.take(POOL_MIN_BYTES + 1)).toBeUndefined();
    expect(pool.take()).toBe(a);
    expect(pool.take()).toBeUndefined();
  });
});

/** A 1,000-record batch (a ~110 KiB frame, past the pool's minimum) whose every value byte is `fill`. */
function batch(fill: number) {
  const records = Array.from({ length: 1000 }, (_, i) => ({
    key: Buffer.from(String(i).padStart(8, '0')),
    value: Buffer.alloc(100, fill),
  }));
  return { flags: 0, codec: 0, topic: 't', records };
}

describe('Connection frame buffers', () => {
  it('sends every pipelined batch intact while its buffers are reused, through socket backpressure', async () => {
    server = await startFakeServer((socket, frame) => {
      socket.write(encodeFrame(ProduceBatchAckReply, frame.correl, { acks: [], errorCode: 0, errorMessage: '' }));
    });
    conn = await Connection.open(`127.0.0.1:${server.port}`);
    await until(() => server!.sockets.length === 1);
    const sent: Buffer[] = [];
    for (let round = 0; round < 3; round++) {
      // The peer reads nothing until the round is queued: later frames wait in the kernel, the stream and the
      // connection's drain queue, each in a buffer that must not be handed out again before the socket took it.
      server.sockets[0]!.pause();
      const replies = [];
      for (let i = 0; i < 80; i++) {
        const message = batch((round * 80 + i) & 0xff);
        replies.push(conn.request(ProduceBatchRequest, message, ProduceBatchAckReply));
        sent.push(Buffer.from(encodeFrame(ProduceBatchRequest, Buffer.alloc(16), message).subarray(21)));
      }
      server.sockets[0]!.resume();
      await Promise.all(replies);
    }
    expect(server.frames).toHaveLength(sent.length);
    server.frames.forEach((frame, i) => expect(frame.payload.equals(sent[i]!), `frame ${i}`).toBe(true));
  });
});
