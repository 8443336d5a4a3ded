/**
 * SHARE_RESET's refusals and targets against a real broker: an offset inside a record is ERR_BAD_FRAME naming the
 * readable range (and no server path), a record start or the end moves the SPSO there, a group with an active
 * member is ERR_GROUP_NOT_EMPTY, and describe counts acquired records and their delivery counts.
 */
import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../src/errors.js';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { pollUntil } from '../helpers/share.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker();

describe('share group reset', () => {
  it('moves the SPSO to a record start or the end, refuses an offset inside a record', async () => {
    await env.start();
    const client = await env.client();
    await client.createTopic('t', 1);
    const { acks } = await client.produceBatch('t', [{ value: 'aaaa' }, { value: 'bbbb' }, { value: 'cccc' }]);
    await client.shareGroups.alter('g', { 'auto.offset.reset': 'earliest' });
    const second = acks[1]!.offset;
    await client.shareGroups.reset('g', second, 't');
    expect((await client.shareGroups.describe('g')).partitions[0]).toMatchObject({ topic: 't', spso: second });

    const inside = second + 1n;
    const refusal = await client.shareGroups.reset('g', inside, 't').catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(BrokerError);
    expect((refusal as BrokerError).errorCode).toBe(ErrorCode.BAD_FRAME);
    const end = (await client.listOffsets('t')).partitions[0]!.latest;
    expect((refusal as Error).message).toContain(
      `offset ${inside} is not a record start in t/partition-1 (readable 0..${end})`,
    );
    expect((refusal as Error).message).not.toContain(env.dataDir);
    // The refused reset moved nothing; the log end is a valid target.
    expect((await client.shareGroups.describe('g')).partitions[0]!.spso).toBe(second);
    await client.shareGroups.reset('g', end, 't');
    expect((await client.shareGroups.describe('g')).partitions[0]!.spso).toBe(end);
    // With no topic named, every partition the group holds is reset.
    await client.shareGroups.reset('g', 'earliest');
    expect((await client.shareGroups.describe('g')).partitions[0]!.spso).toBe(0n);
  });

  it('is refused while a member is active; describe counts what that member holds', async () => {
    await env.start();
    const client = await env.client();
    await client.createTopic('t', 1);
    await client.produceBatch('t', [{ value: 'a' }, { value: 'b' }]);
    await client.shareGroups.alter('g', { 'auto.offset.reset': 'earliest' });
    const member = await env.client();
    const consumer = env.track(await member.shareConsumer({ group: 'g', topics: ['t'], maxWaitMs: 100 }));
    expect(await pollUntil(consumer, 2)).toHaveLength(2);
    const d = await client.shareGroups.describe('g');
    expect(d.partitions[0]).toMatchObject({
      acquired: 2,
      available: 0,
      deliveryCounts: [{ deliveryCount: 1, records: 2 }],
    });
    expect(d.members).toHaveLength(1);
    const refusal = await client.shareGroups.reset('g', 'latest').catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(BrokerError);
    expect((refusal as BrokerError).errorCode).toBe(ErrorCode.GROUP_NOT_EMPTY);
    expect((refusal as Error).message).toContain("share group 'g' has 1 active member(s); stop them before a reset");
  });
});
