/** Starts a broker on port 0 over a fresh temp data dir; `cleanup` stops it and removes the dir. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Broker, type BrokerStartOptions } from '../../src/broker/broker.js';

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
