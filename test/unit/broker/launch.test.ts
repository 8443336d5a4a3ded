import { describe, expect, it } from 'vitest';
import { launchOptions, parseRetentionMs, parseTopicSpec } from '../../../src/broker/launch.js';
import { UsageError } from '../../../src/errors.js';

describe('broker launch settings', () => {
  it('flags (env folded in) win over the appsettings file, which wins over defaults', () => {
    const file = {
      Server: { Port: 9000, Host: '0.0.0.0', DataDir: '/srv/d', Acks: 0, MaxFrameSize: 2048 },
      Auth: { Username: 'a', PasswordHash: 'h' },
    };
    const o = launchOptions({ port: 9100, retention: '7d', topics: ['orders:4', 'audit'] }, file);
    expect(o).toMatchObject({
      port: 9100,
      host: '0.0.0.0',
      dataDir: '/srv/d',
      acks: 'none',
      maxFrameSize: 2048,
      retentionMs: 604_800_000,
    });
    expect(o.auth).toEqual({ username: 'a', passwordHash: 'h' });
    expect(o.topics).toEqual([
      { name: 'orders', partitions: 4 },
      { name: 'audit', partitions: 1 },
    ]);
    expect(launchOptions({}).acks).toBeUndefined();
  });

  it('reads no crash point from the environment: fault injection is only an object a test passes in', () => {
    process.env.CRATER_TEST_CRASH_AT = 'after-prepare-commit';
    try {
      const o = launchOptions({ topics: ['orders'] });
      expect(o.faults).toBeUndefined();
      expect(o.transactions).toBeUndefined();
      expect(o.producerState).toBeUndefined();
    } finally {
      delete process.env.CRATER_TEST_CRASH_AT;
    }
  });

  it('connection limits come from flags over the file (Server.MaxConnections, MaxConnectionsPerIp, MaxPendingSendBytesTotal)', () => {
    const file = { Server: { MaxConnections: 100, MaxConnectionsPerIp: 4, MaxPendingSendBytesTotal: 1024 } };
    expect(launchOptions({ maxConnectionsPerIp: 8 }, file)).toMatchObject({
      maxConnections: 100,
      maxConnectionsPerIp: 8,
      maxPendingSendBytesTotal: 1024,
    });
    expect(launchOptions({})).toMatchObject({
      maxConnections: undefined,
      maxConnectionsPerIp: undefined,
      maxPendingSendBytesTotal: undefined,
    });
  });

  it('refuses half-configured auth, bad acks, retentions and topic specs', () => {
    expect(() => launchOptions({ username: 'x' })).toThrow(UsageError);
    expect(() => launchOptions({ acks: 'all' })).toThrow(/none \(0\) and leader \(1\)/);
    expect(parseRetentionMs('3600')).toBe(3_600_000);
    expect(() => parseRetentionMs('soon')).toThrow(UsageError);
    expect(() => parseTopicSpec('t:0')).toThrow(UsageError);
  });
});
