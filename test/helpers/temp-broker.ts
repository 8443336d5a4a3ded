/**
 * A broker on port 0 over a fresh temp data dir. `startTempBroker` is the one-off form (its `cleanup` stops it and
 * removes the dir); `useTempBroker`, called at module level, registers the hooks that give each test its own dir and
 * after it close every client opened through the scope, stop the broker and remove the dir.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { Broker, type BrokerStartOptions } from '../../src/broker/broker.js';
import { type Client, connect } from '../../src/client/client.js';
import type { ConnectOptions } from '../../src/client/moonmq/session.js';
import { RawClient } from './raw-client.js';

export interface TempBroker {
  broker: Broker;
  dataDir: string;
  port: number;
  cleanup(): Promise<void>;
}

export async function tempDataDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'crater-broker-'));
}

export async function startTempBroker(options: Partial<BrokerStartOptions> = {}): Promise<TempBroker> {
  const dataDir = options.dataDir ?? (await tempDataDir());
  const broker = await Broker.start({ ...options, dataDir });
  return {
    broker,
    dataDir,
    port: broker.address.port,
    async cleanup() {
      await broker.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

interface Closable {
  close(): Promise<unknown>;
}

export interface BrokerScope {
  /** The broker the last `start` started in this test. */
  readonly broker: Broker;
  /** This test's data dir: it exists before the test starts, outlives restarts, and is removed after the test. */
  readonly dataDir: string;
  /** Starts a broker over `dataDir` with the scope's defaults, `options` taking precedence. */
  start(options?: Partial<BrokerStartOptions>): Promise<Broker>;
  /** Closes every client opened so far, stops the broker and starts a new one on the same dir. */
  restart(options?: Partial<BrokerStartOptions>): Promise<Broker>;
  /** A raw client to the current broker that completed HELLO and AUTH; closed after the test. */
  raw(username?: string, password?: string): Promise<RawClient>;
  /** A raw client to the current broker that has sent nothing yet; closed after the test. */
  rawConnection(): Promise<RawClient>;
  /** A crater Client to the current broker; closed after the test. */
  client(options?: Partial<ConnectOptions>): Promise<Client>;
  /** Closes `closable` after the test (in reverse order of tracking), before the broker stops. */
  track<T extends Closable>(closable: T): T;
  /** Closes every client opened so far, last opened first. */
  closeClients(): Promise<void>;
}

export function useTempBroker(defaults: Partial<BrokerStartOptions> = {}): BrokerScope {
  let dataDir = '';
  let broker: Broker | undefined;
  const open: Closable[] = [];

  /** Last opened, first closed (a producer before the proxy it goes through); every one is closed, the first failure thrown. */
  async function closeClients(): Promise<void> {
    let failure: { reason: unknown } | undefined;
    for (const c of open.splice(0).reverse()) {
      try {
        await c.close();
      } catch (reason) {
        failure ??= { reason };
      }
    }
    if (failure) throw failure.reason;
  }

  beforeEach(async () => {
    dataDir = await tempDataDir();
  });
  afterEach(async () => {
    try {
      await closeClients();
    } finally {
      await broker?.stop();
      broker = undefined;
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });

  const scope: BrokerScope = {
    get broker() {
      if (!broker) throw new Error('no broker started in this test');
      return broker;
    },
    get dataDir() {
      return dataDir;
    },
    async start(options = {}) {
      broker = await Broker.start({ ...defaults, ...options, dataDir });
      return broker;
    },
    async restart(options = {}) {
      await closeClients();
      await broker?.stop();
      return scope.start(options);
    },
    async raw(username, password) {
      return scope.track(await RawClient.authenticated(scope.broker.address.port, username, password));
    },
    async rawConnection() {
      return scope.track(await RawClient.connect(scope.broker.address.port));
    },
    async client(options = {}) {
      return scope.track(await connect({ broker: `127.0.0.1:${scope.broker.address.port}`, ...options }));
    },
    track(closable) {
      open.push(closable);
      return closable;
    },
    closeClients,
  };
  return scope;
}

/**
 * Retention that a test drives by moving `clock`: 1 KiB segments, records older than 60 s deletable, and a cleaner
 * that ticks every 10 ms but runs only once a second of `clock` time has passed since its last run.
 */
export function fastRetention(clock: () => bigint): Partial<BrokerStartOptions> {
  return { segmentBytes: 1_024, retentionMs: 60_000, cleanerTickMs: 10, cleanerIntervalMs: 1_000, clock };
}
