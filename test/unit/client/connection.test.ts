import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../../src/client/moonmq/connection.js';
import { BrokerError, ConnectionError, FrameTooLargeError, TimeoutError } from '../../../src/errors.js';
import { ZERO_CORREL, encodeFrame } from '../../../src/protocol/message.js';
import { GoodbyeRequest, HeartbeatRequest, OkReply } from '../../../src/protocol/messages/control.js';
import { ErrorFrame } from '../../../src/protocol/messages/error.js';
import { FetchRequest, RecordReply } from '../../../src/protocol/messages/fetch.js';
import { ProduceAckReply, ProduceRequest } from '../../../src/protocol/messages/produce.js';
import { Op } from '../../../src/protocol/opcodes.js';
import { closeBoth, startFakeServer, until, type FakeServer } from './fake-server.js';

const produce = (value: string) => ({ codec: 0, topic: 't', key: Buffer.alloc(0), value: Buffer.from(value) });

let server: FakeServer | undefined;
let conn: Connection | undefined;

afterEach(async () => {
  await closeBoth(conn, server);
  conn = undefined;
  server = undefined;
});

describe('Connection', () => {
  it('matches pipelined replies to their requests by correl, whatever order they come back in', async () => {
    const held: { socket: net.Socket; correl: Buffer; value: string }[] = [];
    server = await startFakeServer((socket, frame) => {
      const value = frame.payload.subarray(frame.payload.length - 1).toString();
      held.push({ socket, correl: Buffer.from(frame.correl), value });
      if (held.length === 3) {
        for (const h of held.reverse()) {
          h.socket.write(encodeFrame(ProduceAckReply, h.correl, { partition: 1, offset: BigInt(h.value) }));
        }
      }
    });
    conn = await Connection.open(`127.0.0.1:${server.port}`);
    const replies = await Promise.all(
      ['1', '2', '3'].map((v) => conn!.request(ProduceRequest, produce(v), ProduceAckReply)),
    );
    expect(replies.map((r) => r.offset)).toEqual([1n, 2n, 3n]);
    expect(conn.pendingRequests).toBe(0);
  });

  it('sends random UUIDv4 correls', async () => {
    server = await startFakeServer((socket, frame) => socket.write(encodeFrame(OkReply, frame.correl, {})));
    conn = await Connection.open({ host: '127.0.0.1', port: server.port });
    await conn.request(ProduceRequest, produce('a'), OkReply);
    await conn.request(ProduceRequest, produce('b'), OkReply);
    const [a, b] = server.frames.map((f) => f.correl);
    expect(a!.equals(b!)).toBe(false);
    for (const c of [a!, b!]) {
      expect(c[6]! >> 4).toBe(4);
      expect(c[8]! >> 6).toBe(0b10);
    }
  });

  it('turns an ERROR reply into a BrokerError with the code and its name', async () => {
    server = await startFakeServer((socket, frame) =>
      socket.write(encodeFrame(ErrorFrame, frame.correl, { code: 5, message: "topic 't' does not exist" })),
    );
    conn = await Connection.open(`127.0.0.1:${server.port}`);
    const error = await conn.request(ProduceRequest, produce('x'), ProduceAckReply).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrokerError);
    expect(error).toMatchObject({ errorCode: 5, errorName: 'ERR_TOPIC_MISSING' });
    expect((error as Error).message).toContain('does not exist');
  });

  it('times a request out, drops the late reply, and stays usable', async () => {
    const correls: Buffer[] = [];
    server = await startFakeServer((socket, frame) => {
      correls.push(Buffer.from(frame.correl));
      if (correls.length === 2) {
        socket.write(encodeFrame(ProduceAckReply, correls[0]!, { partition: 9, offset: 9n }));
        socket.write(encodeFrame(ProduceAckReply, correls[1]!, { partition: 1, offset: 2n }));
      }
    });
    conn = await Connection.open(`127.0.0.1:${server.port}`);
    const late = await conn.request(ProduceRequest, produce('1'), ProduceAckReply, { timeoutMs: 30 }).catch((e) => e);
    expect(late).toBeInstanceOf(TimeoutError);
    expect((late as Error).message).toContain(`127.0.0.1:${server.port}`);
    const next = await conn.request(ProduceRequest, produce('2'), ProduceAckReply);
    expect(next).toEqual({ partition: 1, offset: 2n });
  });

  it('rejects every pending request with a ConnectionError naming the address when the socket closes', async () => {
    server = await startFakeServer((socket) => {
      if (server!.frames.length === 3) socket.destroy();
    });
    conn = await Connection.open(`127.0.0.1:${server.port}`);
    const results = await Promise.allSettled(
      ['1', '2', '3'].map((v) => conn!.request(ProduceRequest, produce(v), ProduceAckReply)),
    );
    for (const r of results) {
      expect(r.status).toBe('rejected');
      const reason = (r as PromiseRejectedResult).reason as Error;
      expect(reason).toBeInstanceOf(ConnectionError);
      expect(reason.message).toContain(`127.0.0.1:${server.port}`);
    }
    expect(conn.closed).toBe(true);
    await expect(conn.request(ProduceRequest, produce('4'), ProduceAckReply)).rejects.toBeInstanceOf(ConnectionError);
  });

  it('reports a refused connection as one ConnectionError naming the address', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const error = await Connection.open(`127.0.0.1:${port}`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toBe(`cannot connect to 127.0.0.1:${port}: ECONNREFUSED`);
  });

  it('answers a server HEARTBEAT_REQ with HEARTBEAT_RESP on the same correl', async () => {
    const beat = Buffer.from('0123456789abcdef');
    server = await startFakeServer();
    conn = await Connection.open(`127.0.0.1:${server.port}`);
    await until(() => server!.sockets.length === 1);
    server.sockets[0]!.write(encodeFrame(HeartbeatRequest, beat, {}));
    await until(() => server!.frames.length === 1);
    expect(server.frames[0]!.op).toBe(Op.HEARTBEAT_RESP);
    expect(server.frames[0]!.correl.equals(beat)).toBe(true);
  });

  it('routes zero-correl RECORD frames to the push handler while a request waits, and drops strays', async () => {
    const record = {
      topic: 't',
      partition: 1,
      offset: 7n,
      timestamp: 1n,
      key: Buffer.from('k'),
      value: Buffer.from('v'),
    };
    server = await startFakeServer((socket, frame) => {
      socket.write(encodeFrame(RecordReply, ZERO_CORREL, record));
      socket.write(encodeFrame(OkReply, Buffer.alloc(16, 7), {}));
      socket.write(encodeFrame(ProduceAckReply, frame.correl, { partition: 1, offset: 0n }));
    });
    conn = await Connection.open(`127.0.0.1:${server.port}`);
    const pushed: number[] = [];
    conn.setPushHandler((frame) => pushed.push(frame.op));
    const ack = await conn.request(ProduceRequest, produce('x'), ProduceAckReply);
    expect(ack).toEqual({ partition: 1, offset: 0n });
    expect(pushed).toEqual([Op.RECORD]);
  });

  it('fails pending requests with the BrokerError of a zero-correl ERROR sent at teardown', async () => {
    server = await startFakeServer((socket) => {
      socket.end(encodeFrame(ErrorFrame, ZERO_CORREL, { code: 4, message: 'authentication failed' }));
    });
    conn = await Connection.open(`127.0.0.1:${server.port}`);
    const error = await conn.request(ProduceRequest, produce('x'), ProduceAckReply).catch((e: unknown) => e);
    expect(error).toMatchObject({ errorCode: 4, errorName: 'ERR_AUTH_FAILED' });
  });

  it('collects a stream of frames with the request correl until OK', async () => {
    const record = {
      topic: 't',
      partition: 2,
      offset: 0n,
      timestamp: 5n,
      key: Buffer.alloc(0),
      value: Buffer.from('v'),
    };
    server = await startFakeServer((socket, frame) => {
      socket.write(encodeFrame(RecordReply, frame.correl, record));
      socket.write(encodeFrame(RecordReply, frame.correl, { ...record, offset: 40n }));
      socket.write(encodeFrame(OkReply, frame.correl, {}));
    });
    conn = await Connection.open(`127.0.0.1:${server.port}`);
    const frames = await conn.requestStream(FetchRequest, { topic: 't', group: 'g', maxRecords: 10 });
    expect(frames.map((f) => f.op)).toEqual([Op.RECORD, Op.RECORD, Op.OK]);
  });

  it('rejects a streamed reply past maxFrames, drops the rest of it, and goes on serving requests', async () => {
    const record = {
      topic: 't',
      partition: 1,
      offset: 0n,
      timestamp: 5n,
      key: Buffer.alloc(0),
      value: Buffer.from('v'),
    };
    server = await startFakeServer((socket, frame) => {
      if (frame.op === FetchRequest.op) {
        for (let i = 0; i < 50; i++)
          socket.write(encodeFrame(RecordReply, frame.correl, { ...record, offset: BigInt(i) }));
        socket.write(encodeFrame(OkReply, frame.correl, {}));
      } else socket.write(encodeFrame(ProduceAckReply, frame.correl, { partition: 1, offset: 7n }));
    });
    conn = await Connection.open(`127.0.0.1:${server.port}`);
    const fetch = (maxFrames: number) =>
      conn!.requestStream(FetchRequest, { topic: 't', group: 'g', maxRecords: 10 }, Op.OK, { maxFrames });
    await expect(fetch(11)).rejects.toThrow(/sent more than 11 frames in reply to FETCH/);
    expect(conn.pendingRequests).toBe(0);
    expect(await conn.request(ProduceRequest, produce('x'), ProduceAckReply)).toEqual({ partition: 1, offset: 7n });
    expect(await fetch(51)).toHaveLength(51);
  });

  it('refuses a request over the outgoing frame limit before sending anything', async () => {
    server = await startFakeServer();
    conn = await Connection.open(`127.0.0.1:${server.port}`, { maxRequestFrameSize: 100 });
    await expect(conn.request(ProduceRequest, produce('x'.repeat(200)), ProduceAckReply)).rejects.toBeInstanceOf(
      FrameTooLargeError,
    );
    expect(conn.pendingRequests).toBe(0);
    expect(server.frames).toHaveLength(0);
  });

  it('holds frames back while the socket needs a drain, then sends them all in order', async () => {
    server = await startFakeServer((socket, frame) => {
      socket.write(encodeFrame(ProduceAckReply, frame.correl, { partition: 1, offset: BigInt(server!.frames.length) }));
    });
    conn = await Connection.open(`127.0.0.1:${server.port}`);
    await until(() => server!.sockets.length === 1);
    server.sockets[0]!.pause();
    const big = (i: number) => ({ codec: 0, topic: 't', key: Buffer.from(String(i)), value: Buffer.alloc(60_000, i) });
    const replies: Promise<unknown>[] = [];
    let i = 0;
    while (conn.queuedBytes === 0 && i < 2_000) replies.push(conn.request(ProduceRequest, big(i++), ProduceAckReply));
    expect(conn.queuedBytes).toBeGreaterThan(0);
    // writable() settles on the socket's 'drain', which cannot come while the server reads nothing: it must settle
    // only after the resume below, with the held-back frames all handed to the socket.
    let resumed = false;
    let settledAfterResume: boolean | undefined;
    const live = conn;
    const waiting = live.writable().then(() => {
      settledAfterResume = resumed;
      expect(live.queuedBytes).toBe(0);
    });
    // One turn of the event loop: a writable() that did not wait for 'drain' would have settled by now.
    await new Promise((resolve) => setImmediate(resolve));
    expect(settledAfterResume).toBeUndefined();
    resumed = true;
    server.sockets[0]!.resume();
    await waiting;
    expect(settledAfterResume).toBe(true);
    await Promise.all(replies);
    expect(conn.queuedBytes).toBe(0);
    expect(server.frames).toHaveLength(i);
    // PRODUCE payload: u8 codec · str topic ('t', bytes 1..5) · str key (length at 6, bytes from 10).
    const keys = server.frames.map((f) => Number(f.payload.subarray(10, f.payload.readUInt32BE(6) + 10).toString()));
    expect(keys).toEqual(Array.from({ length: i }, (_, n) => n));
  });

  it('close() sends GOODBYE, then ends the socket', async () => {
    server = await startFakeServer((socket, frame) => {
      if (frame.op === GoodbyeRequest.op) socket.end();
    });
    conn = await Connection.open(`127.0.0.1:${server.port}`);
    await conn.close();
    expect(conn.closed).toBe(true);
    expect(server.frames.map((f) => f.op)).toEqual([Op.GOODBYE]);
  });
});
