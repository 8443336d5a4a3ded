import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Broker } from '../../src/broker/broker.js';
import { hashPassword, verifyPassword } from '../../src/broker/auth.js';
import { LOCK_FILE } from '../../src/broker/data-dir-lock.js';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { AuthRequest } from '../../src/protocol/messages/auth.js';
import { HeartbeatReply } from '../../src/protocol/messages/control.js';
import { HelloRequest } from '../../src/protocol/messages/hello.js';
import { ListTopicsRequest } from '../../src/protocol/messages/list-topics.js';
import { Op } from '../../src/protocol/opcodes.js';
import { eventually } from '../helpers/eventually.js';
import { tempDataDir, useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker();

describe('watchdogs and heartbeats', () => {
  it('a silent client is closed by the handshake watchdog with ERR 8', async () => {
    await env.start({ handshakeTimeoutMs: 100, preAuthReadTimeoutMs: 10_000 });
    const c = await env.rawConnection();
    const err = await c.waitFor((f) => f.op === Op.ERROR);
    expect(c.error(err)).toEqual({ code: ErrorCode.BAD_PROTOCOL, message: 'handshake not completed within 100ms' });
    expect(err.correl.equals(Buffer.alloc(16))).toBe(true);
    await c.waitClosed();
  });

  it('the pre-auth read deadline closes with ERR 7 "deadline"', async () => {
    await env.start({ handshakeTimeoutMs: 10_000, preAuthReadTimeoutMs: 100 });
    const c = await env.rawConnection();
    await c.request(HelloRequest, { version: 1 });
    const err = await c.waitFor((f) => f.op === Op.ERROR);
    expect(c.error(err)?.code).toBe(ErrorCode.INTERNAL);
    expect(c.error(err)?.message).toMatch(/deadline/);
    await c.waitClosed();
  });

  it('an idle authenticated client gets HEARTBEAT_REQ; answering keeps it open, silence closes it', async () => {
    await env.start({ heartbeatIntervalMs: 60, idleReadTimeoutMs: 400 });
    const c = await env.raw();
    const silent = await env.raw();
    for (let i = 0; i < 4; i++) {
      const hb = await c.waitFor((f) => f.op === Op.HEARTBEAT_REQ);
      expect(hb.correl.equals(Buffer.alloc(16))).toBe(false);
      c.send(HeartbeatReply, {}, hb.correl);
    }
    const err = await silent.waitFor((f) => f.op === Op.ERROR);
    expect(c.error(err)?.code).toBe(ErrorCode.INTERNAL);
    await silent.waitClosed();
    expect(c.closed).toBe(false);
    expect((await c.request(ListTopicsRequest, {})).op).toBe(Op.TOPIC_LIST);
  });
});

describe('authentication', () => {
  it('verifies PBKDF2 credentials, closes on failure with ERR 4 and locks an IP out after repeated failures', async () => {
    const passwordHash = await hashPassword('secret', 1000);
    expect(await verifyPassword('secret', passwordHash)).toBe(true);
    expect(await verifyPassword('Secret', passwordHash)).toBe(false);
    await env.start({ auth: { username: 'admin', passwordHash }, authMaxFailures: 2, authLockoutMs: 60_000 });
    await env.raw('admin', 'secret');
    for (const [user, pass] of [
      ['admin', 'wrong'],
      ['root', 'secret'],
    ]) {
      const c = await env.rawConnection();
      await c.request(HelloRequest, { version: 1 });
      c.send(AuthRequest, { username: user!, password: pass! });
      const err = await c.waitFor((f) => f.op === Op.ERROR);
      expect(c.error(err)).toEqual({ code: ErrorCode.AUTH_FAILED, message: 'authentication failed' });
      expect(err.correl.equals(Buffer.alloc(16))).toBe(true);
      await c.waitClosed();
    }
    const locked = await env.rawConnection();
    await locked.request(HelloRequest, { version: 1 });
    locked.send(AuthRequest, { username: 'admin', password: 'secret' });
    const err = await locked.waitFor((f) => f.op === Op.ERROR);
    expect(locked.error(err)?.code).toBe(ErrorCode.AUTH_FAILED);
    expect(locked.error(err)?.message).toMatch(/too many failed attempts/);
    await locked.waitClosed();
  });
});

describe('send budget', () => {
  it('a client that never reads is closed once its pending send bytes pass the cap', async () => {
    await env.start({ maxPendingSendBytes: 64 * 1024, topics: [{ name: 'x', partitions: 1 }] });
    const c = await env.raw();
    c.socket.pause();
    const name = Buffer.from('x');
    const req = Buffer.alloc(21 + 4 + name.length);
    let closedBy: string | undefined;
    env.broker.on((e) => {
      if (e.type === 'connection-closed') closedBy = e.reason;
    });
    req.writeUInt32BE(17 + 4 + name.length, 0);
    req[4] = Op.DESCRIBE_TOPIC;
    req.writeUInt32BE(name.length, 21);
    name.copy(req, 25);
    const burst = Buffer.concat(Array.from({ length: 2000 }, () => req));
    // Keeps writing bursts (one per poll) until the broker closes the connection.
    await eventually(
      () => {
        if (closedBy === undefined && !c.socket.destroyed) c.socket.write(burst);
        return closedBy !== undefined;
      },
      { timeoutMs: 20_000, intervalMs: 20, what: 'a close for pending_send_too_large' },
    );
    expect(closedBy).toBe('pending_send_too_large');
  });
});

describe('data directory lock', () => {
  it('a second broker on the same dir fails at once; a stale lock from a dead pid is taken over', async () => {
    await env.start();
    const lock = await fs.readFile(path.join(env.dataDir, LOCK_FILE), 'utf8');
    expect(lock.trim()).toBe(String(process.pid));
    await expect(Broker.start({ dataDir: env.dataDir })).rejects.toThrow(/in use by another broker/);

    const dir = await tempDataDir();
    try {
      await fs.writeFile(path.join(dir, LOCK_FILE), '2147483646\n');
      const b = await Broker.start({ dataDir: dir });
      expect((await fs.readFile(path.join(dir, LOCK_FILE), 'utf8')).trim()).toBe(String(process.pid));
      await b.stop();
      await expect(fs.access(path.join(dir, LOCK_FILE))).rejects.toThrow();
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
