/**
 * Issue 11 item 6: no error reply carries a server path. A NACK at an offset inside a record used to answer the
 * segment file's absolute path (and log at error level); a storage failure surfaced by CREATE_TOPIC carried the
 * topic dir. Every error reply here is scanned for the data dir in all its spellings.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/broker/core.js';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { CreateTopicRequest } from '../../src/protocol/messages/create-topic.js';
import { FetchRequest } from '../../src/protocol/messages/fetch.js';
import { InitProducerIdRequest, ProducerIdReply } from '../../src/protocol/messages/init-producer-id.js';
import { NackRequest } from '../../src/protocol/messages/nack.js';
import { ProduceBatchAckReply, ProduceBatchRequest } from '../../src/protocol/messages/produce-batch.js';
import { ProduceAckReply, ProduceRequest } from '../../src/protocol/messages/produce.js';
import { BatchFlag, FetchFlag, Op } from '../../src/protocol/opcodes.js';
import type { RawClient } from '../helpers/raw-client.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker();

function recordingLogger(): { logger: Logger; errors: string[] } {
  const errors: string[] = [];
  const none = () => undefined;
  return {
    errors,
    logger: { debug: none, info: none, warn: none, error: (m, f) => errors.push(`${m} ${JSON.stringify(f)}`) },
  };
}

async function expectNoDataDir(message: string): Promise<void> {
  for (const spelling of new Set([env.dataDir, path.resolve(env.dataDir), await fs.realpath(env.dataDir)])) {
    expect(message).not.toContain(spelling);
  }
}

async function expectPathFreeError(
  c: RawClient,
  reply: Promise<import('../../src/protocol/frame-decoder.js').Frame>,
): Promise<string> {
  const frame = await reply;
  const err = c.error(frame);
  expect(err, `expected an ERROR, got op 0x${frame.op.toString(16)}`).toBeDefined();
  await expectNoDataDir(err!.message);
  expect(err!.message).not.toMatch(/\/partition-\d+\/|\.log\b/);
  return err!.message;
}

describe('error replies carry no server paths', () => {
  it('a NACK at an offset inside a record: "no record at that offset", nothing logged at error level', async () => {
    const { logger, errors } = recordingLogger();
    await env.start({ topics: [{ name: 'orders', partitions: 1 }], logger });
    const c = await env.raw();
    const ack = c.decode(
      ProduceAckReply,
      await c.request(ProduceRequest, {
        codec: 0,
        topic: 'orders',
        key: Buffer.from('k'),
        value: Buffer.alloc(200, 1),
      }),
    );
    expect(
      (await c.request(FetchRequest, { topic: 'orders', group: 'g', maxRecords: 10, flags: FetchFlag.BATCHED })).op,
    ).toBe(Op.RECORD_BATCH);
    await c.waitFor((f) => f.op === Op.OK);
    for (const inside of [ack.offset + 1n, ack.offset + 37n, ack.offset + 150n]) {
      const message = await expectPathFreeError(
        c,
        c.request(NackRequest, { topic: 'orders', partition: 1, offset: inside, reason: 'x' }),
      );
      expect(message).toBe(`cannot nack orders/partition-1 offset ${inside}: no record at that offset`);
    }
    expect(errors).toEqual([]);
    // The group was not moved by the bogus NACKs.
    expect(
      (await c.request(FetchRequest, { topic: 'orders', group: 'g', maxRecords: 10, flags: FetchFlag.BATCHED })).op,
    ).toBe(Op.OK);
  });

  it('a file-system failure behind a request answers its syscall and code, not the path', async () => {
    await env.start();
    const c = await env.raw();
    // A plain file where the topic's directory would go: the broker's mkdir fails with the full path in its message.
    await fs.writeFile(path.join(env.dataDir, 'blocked'), 'not a directory');
    const message = await expectPathFreeError(c, c.request(CreateTopicRequest, { name: 'blocked', numPartitions: 1 }));
    expect(message).toMatch(/^\w+ failed: E[A-Z]+$/);
    expect(c.error(await c.request(CreateTopicRequest, { name: 'blocked', numPartitions: 1 }))?.code).toBe(
      ErrorCode.INTERNAL,
    );
  });

  it('an idempotent PRODUCE_BATCH that stops part-way acks the prefix with a cleaned message', async () => {
    await env.start({ topics: [{ name: 'orders', partitions: 1 }], segmentBytes: 4096 });
    const c = await env.raw();
    const init = c.decode(ProducerIdReply, await c.request(InitProducerIdRequest, { producerName: 'app' }));
    // The partition's directory goes away under the open segment: the batch's first records still land in it, and
    // the roll to a new segment fails to open its file (ENOENT, the full path in Node's message).
    const partitionDir = path.join(env.dataDir, 'orders', 'partition-1');
    await fs.rm(partitionDir, { recursive: true });
    const records = Array.from({ length: 10 }, (_, i) => ({ key: Buffer.from(`k${i}`), value: Buffer.alloc(1000, i) }));
    const reply = c.decode(
      ProduceBatchAckReply,
      await c.request(ProduceBatchRequest, {
        flags: BatchFlag.IDEMPOTENT,
        codec: 0,
        topic: 'orders',
        producerId: init.producerId,
        baseSeq: 0,
        epoch: init.epoch,
        records,
      }),
    );
    await fs.mkdir(partitionDir); // for the broker's own shutdown checkpoint
    expect(reply.errorCode).toBe(ErrorCode.INTERNAL);
    expect(reply.acks.length).toBeGreaterThan(0);
    expect(reply.acks.length).toBeLessThan(records.length);
    // The same cleaning as the plain PRODUCE_BATCH ack and every ERROR reply: the data dir is replaced.
    expect(reply.errorMessage).toMatch(/^\d+ of 10 records appended: .*ENOENT.*<data-dir>/);
    await expectNoDataDir(reply.errorMessage);
  });
});
