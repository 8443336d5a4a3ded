/**
 * Share-group state across a SIGKILL of the broker (a child process, `crater broker start` from the build): the
 * acknowledged record is never redelivered, the released one keeps its delivery count, and the one still acquired
 * when the broker died comes back Available with its count kept (so its next delivery is its second).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Client, connect } from '../../src/client/client.js';
import { killChildBroker } from '../helpers/child-broker.js';
import { useCrashRun } from '../helpers/crash-run.js';
import { fill, pollUntil, valueOf } from '../helpers/share.js';

const run = useCrashRun('crater-share-crash-');
const clients: Client[] = [];

afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});

async function client(address: string): Promise<Client> {
  const c = await connect({ broker: address, timeoutMs: 10_000 });
  clients.push(c);
  return c;
}

describe('share groups survive a broker SIGKILL', () => {
  it('keeps acknowledged records done and delivery counts; records acquired at the crash are Available again', async () => {
    const first = await run.start({ topics: ['jobs:1'] });
    const c = await client(first.address);
    await c.shareGroups.alter('workers', { 'auto.offset.reset': 'earliest' });
    await fill(c, 'jobs', 4);
    const m = await c.shareConsumer({ group: 'workers', topics: ['jobs'], ackMode: 'explicit', maxWaitMs: 50 });
    const got = await pollUntil(m, 4);
    expect(got.map(valueOf)).toEqual(['v0', 'v1', 'v2', 'v3']);
    m.acknowledge(got[0]!, 'accept');
    m.acknowledge(got[1]!, 'release');
    await m.commit();
    const n = await c.shareConsumer({ group: 'workers', topics: ['jobs'], ackMode: 'explicit', maxWaitMs: 50 });
    const again = await pollUntil(n, 1);
    expect(again.map((r) => [valueOf(r), r.deliveryCount])).toEqual([['v1', 2]]);
    // v1 (count 2, held by n), v2 and v3 (count 1, held by m) are acquired when the broker dies.
    await killChildBroker(first);
    await Promise.all([m.close(), n.close()]);

    const second = await run.start({ topics: ['jobs:1'] });
    const c2 = await client(second.address);
    const m2 = await c2.shareConsumer({ group: 'workers', topics: ['jobs'], maxWaitMs: 50 });
    const after = await pollUntil(m2, 3);
    expect(after.map((r) => [valueOf(r), r.deliveryCount])).toEqual([
      ['v1', 3],
      ['v2', 2],
      ['v3', 2],
    ]);
    expect(await m2.poll()).toEqual([]);
    await m2.close();
  });
});
