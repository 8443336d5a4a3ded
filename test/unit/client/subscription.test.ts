/**
 * Subscription flow control against a scripted peer: records pushed past the high-water mark pause the socket
 * without losing or reordering any, and a request made while paused still gets its reply.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../../src/client/moonmq/connection.js';
import { Subscription } from '../../../src/client/moonmq/subscription.js';
import { ZERO_CORREL, encodeFrame } from '../../../src/protocol/message.js';
import { OkReply } from '../../../src/protocol/messages/control.js';
import { RecordReply } from '../../../src/protocol/messages/fetch.js';
import { NackAckReply } from '../../../src/protocol/messages/nack.js';
import { Op } from '../../../src/protocol/opcodes.js';
import { startFakeServer, type FakeServer } from './fake-server.js';

let server: FakeServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const record = (i: number) => ({
  topic: 't',
  partition: 1,
  offset: BigInt(i),
  timestamp: 0n,
  key: Buffer.alloc(0),
  value: Buffer.from(String(i)),
});

describe('Subscription', () => {
  it('pauses past the high-water mark, loses nothing, and answers a nack while paused', async () => {
    server = await startFakeServer((socket, frame) => {
      if (frame.op === Op.SUBSCRIBE) {
        socket.write(encodeFrame(OkReply, frame.correl, {}));
        for (let i = 0; i < 200; i++) socket.write(encodeFrame(RecordReply, ZERO_CORREL, record(i)));
      } else if (frame.op === Op.NACK) {
        socket.write(encodeFrame(NackAckReply, frame.correl, { deadLettered: false, attempts: 1, dlqTopic: '' }));
      } else if (frame.op === Op.GOODBYE) {
        socket.end();
      }
    });
    const port = server.port;
    const sub = new Subscription(
      async () => ({
        conn: await Connection.open(`127.0.0.1:${port}`),
        server: { name: 'crater', version: '', isCrater: true },
      }),
      't',
      'g',
      { highWaterMark: 10 },
    );
    const seen: number[] = [];
    for await (const r of sub) {
      seen.push(Number(r.value.toString()));
      if (seen.length === 1) {
        expect(sub.paused).toBe(true);
        expect(await sub.nack(1, r.offset, 'retry')).toMatchObject({ attempts: 1 });
        // The records read on the way to the reply left the queue over the mark: reading stops again at once.
        expect(sub.paused).toBe(true);
      }
      if (seen.length === 200) break;
    }
    expect(seen).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(server.frames.map((f) => f.op)).toEqual([Op.SUBSCRIBE, Op.NACK, Op.GOODBYE]);
  });
});
