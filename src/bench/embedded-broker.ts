/**
 * The parent side of the embedded bench broker: forks dist/bench/broker-child.js over a fresh temp data dir on a
 * free port, asks it for fsync counts and RSS over IPC, can restart it on the same dir (cold caches), and on close
 * stops it and removes the dir.
 */
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AcksMode } from '../broker/config.js';
import type { BrokerStats, ChildBrokerOptions, ChildMessage, ChildRequest, ReadyMessage } from './broker-child.js';

export type { BrokerStats };

/** How the last start of the child went: wall time from fork to listening, and what the child reported. */
export interface StartFigures {
  wallMs: number;
  brokerStartMs: number;
  recoveryScannedBytes: number;
}

/** libuv threads of the bench broker (unless UV_THREADPOOL_SIZE is set): parallel fsyncs of one batch. */
const FSYNC_THREADS = 64;

export interface EmbeddedBrokerOptions {
  acks?: AcksMode;
  /** Extra node flags for the child, e.g. ['--cpu-prof', '--cpu-prof-dir=prof']. */
  execArgv?: readonly string[];
  /** How long to wait for the child to listen. */
  startTimeoutMs?: number;
  /** Run on this existing data dir, which close() leaves in place; absent: a fresh temp dir, removed at close. */
  dataDir?: string;
}

/**
 * The compiled file `file` of src/bench/ (a child process's entry). Under vitest this module runs from src/, whose
 * .ts a child could not load without a loader, so it points at the build (npm test builds first).
 */
export function compiledBenchFile(file: string): string {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.js')) return path.join(path.dirname(here), file);
  return path.resolve(path.dirname(here), '../../dist/bench', file);
}

/** The compiled entry of the bench broker's child. */
export function childEntryPath(): string {
  return compiledBenchFile('broker-child.js');
}

export class EmbeddedBroker implements AsyncDisposable {
  private nextId = 1;
  private readonly waiting = new Map<number, (stats: BrokerStats) => void>();
  private child!: ChildProcess;
  private exited!: Promise<void>;
  private closed = false;

  private constructor(
    child: ChildProcess,
    readonly dataDir: string,
    private host: string,
    private port: number,
    private readonly options: EmbeddedBrokerOptions,
    /** The last start's figures. */
    public started: StartFigures,
  ) {
    this.attach(child);
  }

  private attach(child: ChildProcess): void {
    this.child = child;
    child.on('message', (message: ChildMessage) => {
      if (message.type !== 'stats') return;
      const resolve = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      resolve?.(message);
    });
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  static async start(options: EmbeddedBrokerOptions = {}): Promise<EmbeddedBroker> {
    const dataDir = options.dataDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'crater-bench-')));
    try {
      const { child, host, port, started } = await spawnChild(dataDir, options);
      return new EmbeddedBroker(child, dataDir, host, port, options, started);
    } catch (err) {
      if (options.dataDir === undefined) await fs.rm(dataDir, { recursive: true, force: true });
      throw err;
    }
  }

  /**
   * Stops the broker gracefully and starts a new one on the same data dir (a new port): its caches are cold and
   * its logs reopened after a clean shutdown, as after an operator's restart.
   */
  async restart(graceMs = 10_000): Promise<void> {
    if (this.closed) throw new Error('the bench broker is closed');
    await this.stopChild(graceMs);
    await this.respawn();
  }

  /** Kills the broker with SIGKILL (no clean shutdown of anything) and starts a new one on the same data dir. */
  async killAndRestart(): Promise<void> {
    if (this.closed) throw new Error('the bench broker is closed');
    this.resume();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
    await this.respawn();
  }

  private async respawn(): Promise<void> {
    const { child, host, port, started } = await spawnChild(this.dataDir, this.options);
    this.attach(child);
    this.host = host;
    this.port = port;
    this.started = started;
  }

  get address(): string {
    return `${this.host}:${this.port}`;
  }

  /** The broker's fsync counter and RSS right now. */
  stats(): Promise<BrokerStats> {
    return this.ask('stats');
  }

  /** Starts a new peak-RSS window (and returns the stats at its start). */
  resetPeak(): Promise<BrokerStats> {
    return this.ask('reset-peak');
  }

  /** Freezes the broker process (SIGSTOP): its sockets stay open and nothing is answered, as with a hung broker. */
  suspend(): void {
    this.child.kill('SIGSTOP');
  }

  resume(): void {
    this.child.kill('SIGCONT');
  }

  /** Stops the broker gracefully (SIGKILL after `graceMs`) and removes its data dir unless it was given. */
  async close(graceMs = 10_000): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.stopChild(graceMs);
    if (this.options.dataDir === undefined) await fs.rm(this.dataDir, { recursive: true, force: true });
  }

  private async stopChild(graceMs: number): Promise<void> {
    this.resume();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      if (this.child.connected) this.child.send({ type: 'stop' } satisfies ChildRequest);
      const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
      await this.exited;
      clearTimeout(timer);
    }
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private ask(type: 'stats' | 'reset-peak'): Promise<BrokerStats> {
    if (this.closed || !this.child.connected) return Promise.reject(new Error('the bench broker is not running'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, resolve);
      this.exited.then(() => reject(new Error('the bench broker exited')), reject);
      this.child.send({ type, id } satisfies ChildRequest);
    });
  }
}

/**
 * Node flags for the child from CRATER_BENCH_BROKER_NODE_FLAGS (whitespace-separated), used when the caller passed none:
 * how a `bench` command profiles its broker, e.g. `CRATER_BENCH_BROKER_NODE_FLAGS='--cpu-prof --cpu-prof-dir=prof'`.
 */
export function envExecArgv(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.CRATER_BENCH_BROKER_NODE_FLAGS ?? '').split(/\s+/).filter((f) => f.length > 0);
}

/** Forks the child over `dataDir` and waits until it listens (or kills it). */
async function spawnChild(
  dataDir: string,
  options: EmbeddedBrokerOptions,
): Promise<{ child: ChildProcess; host: string; port: number; started: StartFigures }> {
  const forkedAt = performance.now();
  const childOptions: ChildBrokerOptions = { dataDir, acks: options.acks ?? 'leader' };
  const child = fork(childEntryPath(), [JSON.stringify(childOptions)], {
    execArgv: [...(options.execArgv ?? envExecArgv())],
    // A batch over 64 partitions starts 64 fsyncs at once; libuv's default 4 threads would run them 4 at a time.
    env: { ...process.env, UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE ?? String(FSYNC_THREADS) },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    let timer: NodeJS.Timeout | undefined;
    const ready = await new Promise<ReadyMessage>((resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error('the bench broker did not start within the timeout')),
        options.startTimeoutMs ?? 15_000,
      );
      child.on('message', (m: ChildMessage) => {
        if (m.type === 'ready') resolve(m);
        else if (m.type === 'failed') reject(new Error(`the bench broker failed to start: ${m.message}`));
      });
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`the bench broker exited with code ${code} before listening`)));
    }).finally(() => {
      clearTimeout(timer);
      child.removeAllListeners('message').removeAllListeners('error').removeAllListeners('exit');
    });
    const started = {
      wallMs: performance.now() - forkedAt,
      brokerStartMs: ready.startMs,
      recoveryScannedBytes: ready.recoveryScannedBytes,
    };
    return { child, host: ready.host, port: ready.port, started };
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
}
