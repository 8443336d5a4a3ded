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
import { NackRequest } from '../../src/protocol/messages/nack.js';
import { ProduceAckReply, ProduceRequest } from '../../src/protocol/messages/produce.js';
import { FetchFlag, Op } from '../../src/protocol/opcodes.js';
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

async function expectPathFreeError(
  c: RawClient,
  reply: Promise<import('../../src/protocol/frame-decoder.js').Frame>,
): Promise<string> {
  const frame = await reply;
  const err = c.error(frame);
  expect(err, `expected an ERROR, got op 0x${frame.op.toString(16)}`).toBeDefined();
  for (const spelling of new Set([env.dataDir, path.resolve(env.dataDir), await fs.realpath(env.dataDir)])) {
    expect(err!.message).not.toContain(spelling);
  }
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
});
