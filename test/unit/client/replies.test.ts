/**
 * Reply handling of produceBatch and fetch against scripted raw frames: the partial-append shape, the errors that
 * throw, both FETCH reply shapes, and the header guard that must refuse before anything is sent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../../src/client/moonmq/connection.js';
import { fetchRecords } from '../../../src/client/moonmq/fetch-ops.js';
import { produceBatch } from '../../../src/client/moonmq/produce-ops.js';
import type { Session } from '../../../src/client/moonmq/session.js';
import { BrokerError, UsageError } from '../../../src/errors.js';
import { encodeFrame } from '../../../src/protocol/message.js';
import { OkReply } from '../../../src/protocol/messages/control.js';
import { ErrorFrame } from '../../../src/protocol/messages/error.js';
import {
  FetchRequest,
  RecordBatchReply,
  RecordBatchWithHeadersReply,
  RecordReply,
  type FetchedRecord,
} from '../../../src/protocol/messages/fetch.js';
import { ProduceBatchAckReply, ProduceBatchRequest } from '../../../src/protocol/messages/produce-batch.js';
import { decodePayload } from '../../../src/protocol/message.js';
import { FetchFlag, Op } from '../../../src/protocol/opcodes.js';
import { startFakeServer, type FakeServer, type FrameHandler } from './fake-server.js';

let server: FakeServer | undefined;
let conn: Connection | undefined;

afterEach(async () => {
  await conn?.close().catch(() => {});
  conn = undefined;
  await server?.close();
  server = undefined;
});

async function session(onFrame: FrameHandler, isCrater = true): Promise<Session> {
  server = await startFakeServer((socket, frame) => {
    if (frame.op !== Op.GOODBYE) onFrame(socket, frame);
  });
  conn = await Connection.open(`127.0.0.1:${server.port}`);
  return { conn, server: { name: isCrater ? 'crater' : 'MoonMQ', version: 'v', isCrater } };
}

const records = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `v${i}` }));

describe('produceBatch reply handling', () => {
  it('returns the landed prefix with the error of a partial append', async () => {
    const s = await session((socket, frame) => {
      const ack = {
        acks: [
          { partition: 1, offset: 0n },
          { partition: 2, offset: 0n },
          { partition: 1, offset: 30n },
        ],
        errorCode: 7,
        errorMessage: 'disk full',
      };
      socket.write(encodeFrame(ProduceBatchAckReply, frame.correl, ack));
    });
    const result = await produceBatch(s, 'orders', records(5));
    expect(result.acks).toEqual([
      { partition: 1, offset: 0n },
      { partition: 2, offset: 0n },
      { partition: 1, offset: 30n },
    ]);
    expect(result.error).toBeInstanceOf(BrokerError);
    expect(result.error).toMatchObject({ errorCode: 7, errorName: 'ERR_INTERNAL' });
  });

  it('returns acks and no error when every record landed', async () => {
    const s = await session((socket, frame) => {
      if (frame.op !== ProduceBatchRequest.op) return;
      const sent = decodePayload(ProduceBatchRequest, frame.payload);
      const acks = sent.records.map((_, i) => ({ partition: 1, offset: BigInt(i * 40) }));
      socket.write(encodeFrame(ProduceBatchAckReply, frame.correl, { acks, errorCode: 0, errorMessage: '' }));
    });
    const result = await produceBatch(s, 'orders', records(3));
    expect(result).toEqual({ acks: [0n, 40n, 80n].map((offset) => ({ partition: 1, offset })) });
  });

  it('throws when nothing landed, whether as an ERROR frame or an empty ack with an error', async () => {
    let n = 0;
    const s = await session((socket, frame) => {
      if (n++ === 0) socket.write(encodeFrame(ErrorFrame, frame.correl, { code: 5, message: 'no such topic' }));
      else socket.write(encodeFrame(ProduceBatchAckReply, frame.correl, { acks: [], errorCode: 7, errorMessage: 'x' }));
    });
    await expect(produceBatch(s, 'orders', records(2))).rejects.toMatchObject({ errorCode: 5 });
    await expect(produceBatch(s, 'orders', records(2))).rejects.toMatchObject({ errorCode: 7 });
  });

  it('sends headers to a crater broker with BATCH_FLAG_HEADERS, byte-exact', async () => {
    const s = await session((socket, frame) => {
      socket.write(
        encodeFrame(ProduceBatchAckReply, frame.correl, {
          acks: [{ partition: 1, offset: 0n }],
          errorCode: 0,
          errorMessage: '',
        }),
      );
    });
    const headers = [
      { name: 'h', value: Buffer.from([0, 255, 10]) },
      { name: 'h', value: Buffer.alloc(0) },
    ];
    await produceBatch(s, 'orders', [{ key: Buffer.from([0xff, 0]), value: Buffer.from([1, 2]), headers }]);
    const sent = decodePayload(ProduceBatchRequest, server!.frames[0]!.payload);
    expect(sent.flags).toBe(2);
    expect(sent.records[0]!.headers).toEqual(headers);
    expect(sent.records[0]!.key).toEqual(Buffer.from([0xff, 0]));
  });

  it('refuses headers for a non-crater broker and sends nothing', async () => {
    const s = await session(() => {}, false);
    const withHeaders = [{ value: 'v', headers: [{ name: 'a', value: Buffer.from('b') }] }];
    await expect(produceBatch(s, 'orders', withHeaders)).rejects.toThrow(UsageError);
    await expect(fetchRecords(s, 'orders', 'g', { headers: true })).rejects.toThrow(/crater broker/);
    expect(server!.frames).toHaveLength(0);
  });
});

const fetched = (offset: bigint, partition = 1): FetchedRecord => ({
  topic: 'orders',
  partition,
  offset,
  timestamp: 1_700_000_000_000n,
  key: Buffer.from([0, 1]),
  value: Buffer.from(`v${offset}`),
});

describe('fetch reply handling', () => {
  it('reads a RECORD_BATCH then OK as the batch shape, 2 frames', async () => {
    const s = await session((socket, frame) => {
      socket.write(encodeFrame(RecordBatchReply, frame.correl, { records: [fetched(0n), fetched(20n, 2)] }));
      socket.write(encodeFrame(OkReply, frame.correl, {}));
    });
    const result = await fetchRecords(s, 'orders', 'g', { maxRecords: 10 });
    expect(result.shape).toBe('batch');
    expect(result.frames).toBe(2);
    expect(result.records).toEqual([fetched(0n), fetched(20n, 2)]);
    expect(result.rawFrames).toBeUndefined();
    const sent = decodePayload(FetchRequest, server!.frames[0]!.payload);
    expect(sent).toEqual({ topic: 'orders', group: 'g', maxRecords: 10, isolation: 0, flags: FetchFlag.BATCHED });
  });

  it('reads RECORD frames then OK as the legacy shape, which an old broker sends even when batching was asked', async () => {
    const s = await session((socket, frame) => {
      for (const o of [0n, 20n, 40n]) socket.write(encodeFrame(RecordReply, frame.correl, fetched(o)));
      socket.write(encodeFrame(OkReply, frame.correl, {}));
    });
    const result = await fetchRecords(s, 'orders', 'g', { raw: true });
    expect(result.shape).toBe('legacy');
    expect(result.frames).toBe(4);
    expect(result.records.map((r) => r.offset)).toEqual([0n, 20n, 40n]);
    expect(result.rawFrames!.map((f) => f.op)).toEqual([0x83, 0x83, 0x83, 0x86]);
  });

  it('sends no flags byte for an unbatched fetch, and decodes header blocks when it asked for them', async () => {
    const withHeaders = { ...fetched(0n), headers: [{ name: 'trace', value: Buffer.from([9]) }] };
    const s = await session((socket, frame) => {
      if (frame.op !== FetchRequest.op) return;
      const asked = decodePayload(FetchRequest, frame.payload);
      if (asked.flags === (FetchFlag.BATCHED | FetchFlag.HEADERS)) {
        socket.write(encodeFrame(RecordBatchWithHeadersReply, frame.correl, { records: [withHeaders] }));
      }
      socket.write(encodeFrame(OkReply, frame.correl, {}));
    });
    const plain = await fetchRecords(s, 'orders', 'g', { batched: false, isolation: 'read_committed' });
    expect(plain).toMatchObject({ records: [], shape: 'legacy', frames: 1 });
    expect(decodePayload(FetchRequest, server!.frames[0]!.payload)).toMatchObject({ isolation: 1, flags: undefined });
    const result = await fetchRecords(s, 'orders', 'g', { headers: true });
    expect(result.records).toEqual([withHeaders]);
  });

  it('rejects with the BrokerError of a lone ERROR reply', async () => {
    const s = await session((socket, frame) => {
      socket.write(encodeFrame(ErrorFrame, frame.correl, { code: 8, message: 'group mismatch' }));
    });
    await expect(fetchRecords(s, 'orders', 'g')).rejects.toMatchObject({ errorCode: 8, errorName: 'ERR_BAD_PROTOCOL' });
  });
});
