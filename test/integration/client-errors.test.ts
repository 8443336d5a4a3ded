import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/broker/auth.js';
import { Connection, connect, type Client } from '../../src/client/index.js';
import { BrokerError, ConnectionError, TimeoutError, UsageError } from '../../src/errors.js';
import { HeartbeatReply, OkReply } from '../../src/protocol/messages/control.js';
import { startTempBroker, type TempBroker } from '../helpers/temp-broker.js';

let env: TempBroker | undefined;
const clients: Client[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await env?.cleanup();
  env = undefined;
});

async function open(options: Partial<Parameters<typeof connect>[0]> = {}): Promise<Client> {
  const c = await connect({ broker: `127.0.0.1:${env!.port}`, ...options });
  clients.push(c);
  return c;
}

describe('client: connection failures and guards against the broker', () => {
  it('reports a refused connection as one ConnectionError naming the address', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const error = await connect({ broker: `127.0.0.1:${port}` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);
  });

  it('times out a request the broker never answers, and the connection stays usable', async () => {
    env = await startTempBroker();
    const c = await open();
    // HEARTBEAT_RESP gets no reply from a broker, so waiting for one can only time out.
    const error = await c.connection.request(HeartbeatReply, {}, OkReply, { timeoutMs: 50 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toContain(c.address);
    expect(await c.listTopics()).toEqual([]);
  });

  it('fails connect with ERR_AUTH_FAILED on bad credentials, and succeeds with good ones', async () => {
    env = await startTempBroker({ auth: { username: 'app', passwordHash: await hashPassword('secret', 1_000) } });
    const error = await connect({ broker: `127.0.0.1:${env.port}`, username: 'app', password: 'wrong' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BrokerError);
    expect(error).toMatchObject({ errorName: 'ERR_AUTH_FAILED' });
    const c = await open({ username: 'app', password: 'secret' });
    expect(await c.listTopics()).toEqual([]);
  });

  it('rejects pending and later requests with a ConnectionError naming the address when the broker goes away', async () => {
    env = await startTempBroker({ topics: [{ name: 'one', partitions: 1 }] });
    const c = await open();
    const closed = new Promise<unknown>((resolve) => c.on((e) => e.type === 'closed' && resolve(e.error)));
    const pending = c.connection.request(HeartbeatReply, {}, OkReply).catch((e: unknown) => e);
    await env.broker.stop();
    expect(await pending).toBeInstanceOf(ConnectionError);
    expect(await closed).toBeInstanceOf(ConnectionError);
    const later = await c.listTopics().catch((e: unknown) => e);
    expect(later).toBeInstanceOf(ConnectionError);
    expect((later as Error).message).toContain(`127.0.0.1:${env.port}`);
  });

  it('refuses to send headers to a broker that is not crater, and sends nothing', async () => {
    env = await startTempBroker({ topics: [{ name: 'one', partitions: 1 }] });
    env.broker.identity = { name: 'MoonMQ', version: 'v0.01' };
    const c = await open();
    expect(c.isCrater).toBe(false);
    expect(c.serverName).toBe('MoonMQ');
    const record = { value: 'v', headers: [{ name: 'h', value: Buffer.from('x') }] };
    await expect(c.produceBatch('one', [record])).rejects.toBeInstanceOf(UsageError);
    await expect(c.fetch('one', 'g', { headers: true })).rejects.toBeInstanceOf(UsageError);
    expect((await c.listOffsets('one')).partitions[0]!.latest).toBe(0n);
    // Without headers the same broker is fully usable.
    expect((await c.produceBatch('one', [{ value: 'v' }])).acks).toHaveLength(1);
  });

  it('connects over IPv6 loopback when the host has it', async () => {
    const probe = net.createServer();
    const hasV6 = await new Promise<boolean>((resolve) => {
      probe.once('error', () => resolve(false));
      probe.listen(0, '::1', () => probe.close(() => resolve(true)));
    });
    if (!hasV6) return;
    env = await startTempBroker({ host: '::1' });
    const c = await connect({ broker: `[::1]:${env.port}` });
    clients.push(c);
    expect(c.address).toBe(`[::1]:${env.port}`);
    expect(await c.listTopics()).toEqual([]);
  });

  it('close() is idempotent and await using disposes the client', async () => {
    env = await startTempBroker();
    const c = await open();
    await c.close();
    await c.close();
    expect(c.connection.closed).toBe(true);
    const conn = await Connection.open(`127.0.0.1:${env.port}`);
    await conn[Symbol.asyncDispose]();
    expect(conn.closed).toBe(true);
  });
});
