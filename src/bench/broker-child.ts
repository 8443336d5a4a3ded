/**
 * The entry of the embedded bench broker, run with child_process.fork so the broker and the measuring client do
 * not share one event loop. It speaks over the IPC channel only (stdout and stderr stay free for the broker's
 * logs and for `--cpu-prof` notices):
 *
 *   parent → child   { type: 'stats', id }        answered with a BrokerStats carrying the same id
 *                    { type: 'reset-peak', id }   starts a new peak-RSS and fsync-timing window, answered like 'stats'
 *                    { type: 'stop' }             stops the broker, then the child leaves the channel and exits
 *   child → parent   { type: 'ready', host, port, startMs, recoveryScannedBytes } once listening (how long
 *                    Broker.start took, and the log bytes its storage recovery read); { type: 'failed', message }
 *
 * argv[2] is the JSON of ChildBrokerOptions. RSS is sampled every 50 ms (and on every request) for the peak.
 */
import { Broker } from '../broker/broker.js';
import type { AcksMode } from '../broker/config.js';
import { recoveryScannedBytes } from '../storage/recovery.js';
import { FsyncTimer, type FsyncWindow } from './fsync-timer.js';

export interface ChildBrokerOptions {
  dataDir: string;
  acks: AcksMode;
  sampleMs?: number;
}

export type ChildRequest = { type: 'stats'; id: number } | { type: 'reset-peak'; id: number } | { type: 'stop' };

export interface BrokerStats {
  type: 'stats';
  id: number;
  /** fsyncs issued by every open partition log of the broker since it started. */
  fsyncCount: number;
  /** The same for user topics only: the fsyncs produced records cost, not those of offsets or producer state. */
  userFsyncCount: number;
  rssBytes: number;
  /** Highest sampled RSS since start or the last 'reset-peak'. */
  peakRssBytes: number;
  /** CPU time (user + system) the broker process has used since it started, in milliseconds. */
  cpuMs: number;
  /** The broker's asynchronous fsyncs (the group committers') since start or the last 'reset-peak', timed. */
  fsyncs: FsyncWindow;
}

export interface ReadyMessage {
  type: 'ready';
  host: string;
  port: number;
  /** Broker.start, opening and recovering every partition included, in ms. */
  startMs: number;
  /** Log bytes load-time recovery read (storage/recovery.ts). */
  recoveryScannedBytes: number;
}

export type ChildMessage = ReadyMessage | { type: 'failed'; message: string } | BrokerStats;

function send(message: ChildMessage): void {
  process.send?.(message);
}

/** The broker over `options`, or undefined after reporting why it did not start. */
async function startBroker(options: ChildBrokerOptions): Promise<Broker | undefined> {
  try {
    // Every bench connection comes from loopback: `--connections 256` plus the fetching and probing ones.
    return await Broker.start({ dataDir: options.dataDir, port: 0, acks: options.acks, maxConnectionsPerIp: 1024 });
  } catch (err) {
    send({ type: 'failed', message: (err as Error).message });
    if (process.connected) process.disconnect();
    return undefined;
  }
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as ChildBrokerOptions;
  const fsyncTimer = new FsyncTimer();
  fsyncTimer.install();
  const started = performance.now();
  const broker = await startBroker(options);
  if (!broker) return;
  let peak = process.memoryUsage.rss();
  const sample = (): number => {
    const rss = process.memoryUsage.rss();
    if (rss > peak) peak = rss;
    return rss;
  };
  const sampler = setInterval(sample, options.sampleMs ?? 50);
  const stats = (id: number): BrokerStats => {
    const rss = sample();
    const cpu = process.cpuUsage();
    return {
      type: 'stats',
      id,
      fsyncCount: broker.fsyncCount,
      userFsyncCount: broker.userFsyncCount,
      rssBytes: rss,
      peakRssBytes: peak,
      cpuMs: (cpu.user + cpu.system) / 1000,
      fsyncs: fsyncTimer.window(),
    };
  };
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    clearInterval(sampler);
    await broker.stop();
    if (process.connected) process.disconnect();
  };
  process.on('message', (message: ChildRequest) => {
    switch (message.type) {
      case 'stats':
        send(stats(message.id));
        break;
      case 'reset-peak':
        peak = 0;
        fsyncTimer.reset();
        send(stats(message.id));
        break;
      case 'stop':
        void stop();
        break;
    }
  });
  // The parent went away without asking: stop cleanly so the data-dir lock and files are released.
  process.on('disconnect', () => void stop());
  const { host, port } = broker.address;
  const startMs = performance.now() - started;
  send({ type: 'ready', host, port, startMs, recoveryScannedBytes: recoveryScannedBytes() });
}

void main();
