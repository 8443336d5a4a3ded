/**
 * A LogFactory whose chosen topic's fsyncs wait at a gate the test opens: "a PRODUCE waiting for its fsync" made
 * deterministic. Everything else is the real storage: the data is written and, once released, really fsynced.
 */
import { resolveConfig } from '../../src/broker/config.js';
import type { LogFactory } from '../../src/broker/log-factory.js';
import { storageLogFactory } from '../../src/broker/storage-log-factory.js';
import type { PartitionLog } from '../../src/storage/partition-log.js';

export class SyncGate {
  /** Syncs currently held at the gate. */
  waiting = 0;
  private held = false;
  private opened: Array<() => void> = [];

  hold(): void {
    this.held = true;
  }

  release(): void {
    this.held = false;
    for (const open of this.opened.splice(0)) open();
  }

  async pass(): Promise<void> {
    if (!this.held) return;
    this.waiting++;
    try {
      await new Promise<void>((resolve) => this.opened.push(resolve));
    } finally {
      this.waiting--;
    }
  }
}

/** Real storage under `dataDir`; `sync()` on every partition of `topic` passes `gate` first. */
export function gatedLogFactory(dataDir: string, topic: string, gate: SyncGate): LogFactory {
  const real = storageLogFactory(resolveConfig({ dataDir }));
  return {
    ...real,
    async open(partitionDir, name, config) {
      const log = await real.open(partitionDir, name, config);
      return name === topic ? gateSync(log, gate) : log;
    },
  };
}

function gateSync(log: PartitionLog, gate: SyncGate): PartitionLog {
  const sync = async (): Promise<void> => {
    await gate.pass();
    await log.sync();
  };
  return new Proxy(log, {
    get(target, prop) {
      if (prop === 'sync') return sync;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
